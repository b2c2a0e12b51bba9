#include <nlohmann/json.hpp>

#include "fxscope/report/run_result.h"

namespace fxscope::report {

nlohmann::json to_json(const RunResult& run) {
  nlohmann::json j;
  j["backend"] = run.backend;
  j["device"] = run.device;
  j["unit"] = run.unit;
  j["torch_version"] = run.torch_version;
  if (run.allow_tf32) j["allow_tf32"] = *run.allow_tf32;
  j["modes"] = nlohmann::json::array();
  for (const RunMode& m : run.modes) {
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
    jm["cuda_graph_launches"] = m.cuda_graph_launches;
    jm["kernels"] = nlohmann::json::array();
    for (const RunKernel& k : m.kernels) {
      jm["kernels"].push_back({{"name", k.name},
                               {"group", k.group},
                               {"nodes", k.nodes},
                               {"dynamo_nodes", k.dynamo_nodes},
                               {"us", k.us},
                               {"calls", k.calls},
                               {"grid", k.grid},
                               {"block", k.block},
                               {"cuda_graph", k.cuda_graph}});
      if (k.median_us > 0) jm["kernels"].back()["median_us"] = k.median_us;
    }
    j["modes"].push_back(std::move(jm));
  }
  return j;
}

}  // namespace fxscope::report
