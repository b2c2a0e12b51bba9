#include <cstdint>

#include <nlohmann/json.hpp>

#include "fxscope/gpu/torch_run.h"

namespace fxscope::gpu {

nlohmann::json to_json(const TorchRun& run) {
  nlohmann::json j;
  j["backend"] = "pytorch";
  j["device"] = run.device;
  j["unit"] = run.unit;
  j["torch_version"] = run.torch_version;
  if (run.allow_tf32) j["allow_tf32"] = *run.allow_tf32;
  j["modes"] = nlohmann::json::array();
  for (const auto& m : run.modes) {
    nlohmann::json jm;
    jm["mode"] = m.mode;
    jm["total_us"] = m.total_us;
    jm["total_min_us"] = m.total_min_us;
    jm["total_max_us"] = m.total_max_us;
    jm["repeats"] = m.repeats;
    jm["kernel_us"] = m.kernel_us;
    jm["attributed_us"] = m.attributed_us;
    jm["attributed_share"] = m.attributed_share();
    jm["dynamo_us"] = m.dynamo_us;
    jm["dynamo_share"] = m.dynamo_share();
    jm["launches"] = m.launches;
    jm["cuda_graph_launches"] = m.graph_launches;
    jm["kernels"] = nlohmann::json::array();
    for (const auto& k : m.kernels) {
      jm["kernels"].push_back({{"name", k.name},
                               {"group", k.group},
                               {"nodes", k.nodes},
                               {"dynamo_nodes", k.dynamo_nodes},
                               {"us", k.us},
                               {"calls", k.calls},
                               {"grid", k.grid},
                               {"block", k.block},
                               {"cuda_graph", k.in_cuda_graph}});
      if (k.median_us > 0) jm["kernels"].back()["median_us"] = k.median_us;
    }
    j["modes"].push_back(std::move(jm));
  }
  return j;
}

nlohmann::json to_chrome_trace(const TorchRun& run) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t p = 0; p < run.modes.size(); ++p) {
    const auto& m = run.modes[p];
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", p},
                      {"args", {{"name", "pytorch " + m.mode}}}});
    // Each mode starts at 0 so the modes line up for comparison.
    const std::uint64_t origin = m.timeline.empty() ? 0 : m.timeline.front().start;
    for (const auto& k : m.timeline) {
      events.push_back({{"ph", "X"},
                        {"name", k.name},
                        {"pid", p},
                        {"tid", k.stream},
                        {"ts", static_cast<double>(k.start - origin) / 1000.0},
                        {"dur", k.us()},
                        {"args", {{"grid", k.grid}, {"block", k.block}, {"graph", k.graph}}}});
    }
  }
  return {{"traceEvents", events}, {"displayTimeUnit", "ns"}};
}

}  // namespace fxscope::gpu
