#include "layout/heat_overlay.h"

#include <algorithm>
#include <cmath>

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
    }
  }
  if (out.mode != nullptr) {
    // The plan's kernels take the run's time as `compare` gives it; each cluster sums the kernels
    // it draws.
    const report::RunAttribution attribution = report::attribute_run(*out.mode, graph.run_groups);
    std::vector<bool> placed(out.mode->kernels.size(), false);
    for (std::size_t g = 0; g < graph.groups.size(); ++g) {
      GroupHeat& heat = out.groups[g];
      for (const std::size_t kernel : graph.groups[g].plan_groups) {
        if (kernel >= attribution.groups.size()) continue;
        const report::GroupTime& time = attribution.groups[kernel];
        heat.us += time.us;
        heat.measured = heat.measured || time.measured;
        heat.kernels.insert(heat.kernels.end(), time.kernels.begin(), time.kernels.end());
      }
      std::sort(heat.kernels.begin(), heat.kernels.end());
      heat.kernels.erase(std::unique(heat.kernels.begin(), heat.kernels.end()), heat.kernels.end());
      for (const std::size_t k : heat.kernels) {
        placed[k] = true;
        if (out.mode->kernels[k].group == graph.groups[g].name) heat.own = k;
      }
    }
    for (std::size_t k = 0; k < placed.size(); ++k) {
      if (!placed[k]) out.stray_kernels.push_back(k);
    }
    out.per_node = attribution.per_node;
  }
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    GroupHeat& heat = out.groups[g];
    if (!heat.measured) heat.us = graph.groups[g].predicted_us;
    out.measured_groups += heat.measured ? 1U : 0U;
    out.max_us = std::max(out.max_us, heat.us);
  }
  return out;
}

}  // namespace fxscope::views
