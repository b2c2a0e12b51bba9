#include "heat_overlay.h"

#include <algorithm>
#include <cmath>
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
    } else if ((out.mode = run->find_mode(mode_name)) == nullptr) {
      out.mismatch = "the GPU run did not measure mode " + mode_name;
    } else {
      out.device = run->device;
      out.per_node = out.mode->time_per_node();
    }
  }
  // Which kernels of the run touch each post-grad node, to name them per group.
  std::unordered_map<std::string, std::vector<std::size_t>> kernels_of;
  if (out.mode != nullptr) {
    for (std::size_t k = 0; k < out.mode->kernels.size(); ++k) {
      for (const std::string& node : out.mode->kernels[k].nodes) kernels_of[node].push_back(k);
    }
  }
  std::unordered_set<std::size_t> placed;
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    const CanvasGroup& group = graph.groups[g];
    GroupHeat& heat = out.groups[g];
    double measured = 0;
    for (const std::string& node : group.aten_nodes) {
      if (const auto it = out.per_node.find(node); it != out.per_node.end()) {
        measured += it->second;
        heat.measured = true;
      }
      if (const auto it = kernels_of.find(node); it != kernels_of.end()) {
        heat.kernels.insert(heat.kernels.end(), it->second.begin(), it->second.end());
      }
    }
    std::sort(heat.kernels.begin(), heat.kernels.end());
    heat.kernels.erase(std::unique(heat.kernels.begin(), heat.kernels.end()), heat.kernels.end());
    placed.insert(heat.kernels.begin(), heat.kernels.end());
    heat.us = heat.measured ? measured : group.predicted_us;
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
