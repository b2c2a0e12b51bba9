#include "layout/heat_overlay.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace fxscope::views {
namespace {

// ColorBrewer's YlOrRd: ordered in lightness, so it reads in grey and for most colour blindness.
constexpr std::array<std::array<int, 3>, 5> kHeatStops = {{
    {255, 255, 178},
    {254, 204, 92},
    {253, 141, 60},
    {240, 59, 32},
    {189, 0, 38},
}};

}  // namespace

QColor heat_color(double fraction) {
  const double f = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
  const double scaled = f * double(kHeatStops.size() - 1);
  const auto low = std::min(std::size_t(scaled), kHeatStops.size() - 2);
  const double t = scaled - double(low);
  auto mix = [&](std::size_t c) {
    return int(std::lround(kHeatStops[low][c] * (1 - t) + kHeatStops[low + 1][c] * t));
  };
  return {mix(0), mix(1), mix(2)};
}

std::string HeatOverlay::source() const {
  if (mode == nullptr) return "predicted by the cost model (no GPU run of this unit and mode)";
  return "measured on " + device + ", " + mode->mode + ": " + std::to_string(measured_groups) +
         " of " + std::to_string(groups.size()) + " groups measured";
}

HeatOverlay build_heat_overlay(const CanvasGraph& graph, const report::RunResult* run) {
  HeatOverlay out;
  out.groups.resize(graph.groups.size());
  if (run != nullptr) {
    const std::string mode_name(fusion::to_string(graph.request.mode));
    if (run->unit != graph.compile_id) {
      out.mismatch = "the GPU run is of unit " + run->unit + ", not " + graph.compile_id;
    } else if (graph.request.level == GraphLevel::kAtenBackward) {
      // Node names repeat between the forward and backward graphs: no time may cross over.
      out.mismatch = "the GPU run measured the forward graph";
    } else if ((out.mode = run->find_mode(mode_name)) == nullptr) {
      out.mismatch = "the GPU run did not measure mode " + mode_name;
    } else {
      out.device = run->device;
      out.per_node = out.mode->time_per_node();
    }
  }
  // The groups holding each post-grad node: a node recomputed by two kernels (a reduction that
  // recomputes its pointwise prologue) sits in both groups.
  std::unordered_map<std::string, std::vector<std::size_t>> groups_of;
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    for (const std::string& node : graph.groups[g].aten_nodes) {
      auto& gs = groups_of[node];
      if (std::find(gs.begin(), gs.end(), g) == gs.end()) gs.push_back(g);
    }
  }
  // The cluster each kernel of the plan is drawn in, by name, where the name is one cluster's
  // only (eager names its kernels by op: "aten.relu" is many clusters).
  std::unordered_map<std::string, std::size_t> kernel_cluster;
  std::unordered_set<std::string> shared_names;
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    for (const std::string& name : graph.groups[g].kernel_names) {
      const auto [it, fresh] = kernel_cluster.emplace(name, g);
      if (!fresh && it->second != g) shared_names.insert(name);
    }
  }
  for (const std::string& name : shared_names) kernel_cluster.erase(name);
  // A kernel the run ran for a kernel drawn here (its `group` names it) is that cluster's time,
  // whole, where its nodes are all the cluster's. Split by nodes, a kernel's time would also land
  // on every group recomputing its nodes: pointwise_chain's normalisation kernel recomputes the
  // chain its var_mean kernel reduces, and took 4.5 of that kernel's 21 us. A layout copy's nodes
  // are only the origins it is named after, not the cluster's: its name alone places it.
  const auto own_cluster = [&](const report::RunKernel& kernel) -> std::optional<std::size_t> {
    const auto it = kernel_cluster.find(kernel.group);
    if (it == kernel_cluster.end()) return std::nullopt;
    const CanvasGroup& host = graph.groups[it->second];
    const auto holds = [](const std::vector<std::string>& names, const std::string& name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    if (holds(host.layout_copies, kernel.group)) return it->second;
    if (kernel.nodes.empty()) return std::nullopt;
    for (const std::string& node : kernel.nodes) {
      if (!holds(host.aten_nodes, node)) return std::nullopt;
    }
    return it->second;
  };
  // Other kernels' time goes to the groups their nodes are in, split by how many of its nodes
  // each holds, so the groups' times add up to the run's attributed kernel time, nothing counted
  // twice.
  std::vector<double> measured(graph.groups.size(), 0.0);
  std::unordered_set<std::size_t> placed;
  if (out.mode != nullptr) {
    for (std::size_t k = 0; k < out.mode->kernels.size(); ++k) {
      const report::RunKernel& kernel = out.mode->kernels[k];
      std::unordered_map<std::size_t, double> hits;
      double total_hits = 0;
      if (const auto own = own_cluster(kernel)) {
        hits[*own] = 1.0;
        total_hits = 1.0;
      } else {
        for (const std::string& node : kernel.nodes) {
          const auto it = groups_of.find(node);
          if (it == groups_of.end()) continue;
          for (std::size_t g : it->second) {
            hits[g] += 1.0;
            total_hits += 1.0;
          }
        }
      }
      for (const auto& [g, n] : hits) {
        measured[g] += kernel.us * n / total_hits;
        out.groups[g].measured = true;
        out.groups[g].kernels.push_back(k);
        placed.insert(k);
      }
    }
  }
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    GroupHeat& heat = out.groups[g];
    std::sort(heat.kernels.begin(), heat.kernels.end());
    for (std::size_t k : heat.kernels) {
      if (out.mode->kernels[k].group == graph.groups[g].name) heat.own = k;
    }
    heat.us = heat.measured ? measured[g] : graph.groups[g].predicted_us;
    out.measured_groups += heat.measured ? 1U : 0U;
    out.max_us = std::max(out.max_us, heat.us);
  }
  if (out.mode != nullptr) {
    for (std::size_t k = 0; k < out.mode->kernels.size(); ++k) {
      if (!placed.contains(k)) out.stray_kernels.push_back(k);
    }
  }
  return out;
}

}  // namespace fxscope::views
