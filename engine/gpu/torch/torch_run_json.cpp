#include <cstdint>

#include <nlohmann/json.hpp>

#include "fxscope/gpu/torch_run.h"

namespace fxscope::gpu {

nlohmann::json to_chrome_trace(const report::RunResult& run) {
  nlohmann::json events = nlohmann::json::array();
  for (std::size_t p = 0; p < run.modes.size(); ++p) {
    const auto& m = run.modes[p];
    events.push_back({{"ph", "M"},
                      {"name", "process_name"},
                      {"pid", p},
                      {"args", {{"name", run.backend + " " + m.mode}}}});
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
