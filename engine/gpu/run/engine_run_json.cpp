#include <cmath>

#include <nlohmann/json.hpp>

#include "fxscope/gpu/engine_run.h"

namespace fxscope::gpu {
namespace {

nlohmann::json coverage_json(const Coverage& c) {
  return {{"ops", c.ops},
          {"ran", c.ran},
          {"text", std::to_string(c.ran) + " of " + std::to_string(c.ops) + " ops"},
          {"missing", c.missing}};
}

}  // namespace

report::RunResult run_result(const EngineRun& run) {
  report::RunResult r;
  r.backend = "engine";
  r.device = run.device;
  r.unit = run.unit;
  for (const auto& m : run.modes) r.modes.push_back(m.measured);
  return r;
}

nlohmann::json to_json(const EngineRun& run) {
  nlohmann::json j = report::to_json(run_result(run));
  j.erase("torch_version");
  j["cuda_version"] = run.cuda_version;
  j["cudnn"] = run.cudnn;
  j["copy_gbps"] = run.copy_gbps;
  j["empty_kernel_us"] = run.empty_kernel_us;
  // Which kernels' bandwidth is judged: those moving at least min_bytes and not compute-bound,
  // against a copy of their own size made by the reference copy kernel. (A run without
  // "reference" here was judged against cudaMemcpy and says "share_of_same_size_copy" instead
  // of "share"; report/run_result reads both.)
  j["bandwidth_target"] = {{"share", kBandwidthTarget},
                           {"reference", "same_size_copy_kernel"},
                           // The copy is timed in the kernel's place (after the step before
                           // it, in the mode's CUDA graph or stream); a run without "place"
                           // timed it alone.
                           {"place", "in_place"},
                           {"min_bytes", kBandwidthMinBytes},
                           {"alu_slots_per_us", run.alu_slots_per_us}};
  j["coverage"] = coverage_json(run.coverage);
  j["notes"] = run.notes;
  for (std::size_t i = 0; i < run.modes.size(); ++i) {
    const EngineMode& m = run.modes[i];
    nlohmann::json& jm = j["modes"][i];
    jm["ran"] = m.ran;
    jm["error"] = m.error;
    jm["coverage"] = coverage_json(m.coverage);
    // JSON has no infinity: an incomparable output is reported as null with flagged true.
    jm["max_rel_err"] = m.max_rel_err && std::isfinite(*m.max_rel_err)
                            ? nlohmann::json(*m.max_rel_err)
                            : nlohmann::json(nullptr);
    jm["rel_errs"] = nlohmann::json::array();
    for (const double e : m.rel_errs) {
      jm["rel_errs"].push_back(std::isfinite(e) ? nlohmann::json(e) : nlohmann::json(nullptr));
    }
    jm["tolerance"] = m.tolerance;
    jm["flagged"] = m.flagged;
    jm["near_f32_reference"] = m.near_reference;
    jm["outputs_not_compared"] = m.outputs_not_compared;
    jm["f32_reference_distance"] = m.reference_distance;
    jm["eager_f32_reference_distance"] = m.eager_reference_distance;
    jm["peak_bytes"] = m.peak_bytes;
    jm["bytes_without_reuse"] = m.unplanned_bytes;
    jm["host_launch_us"] = m.host_launch_us;
    jm["cuda_graph"] = m.cuda_graph;
    jm["picks"] = m.picks;
    jm["bandwidth"] = nlohmann::json::array();
    for (const auto& b : m.bandwidth) {
      jm["bandwidth"].push_back(
          {{"name", b.name},
           {"group", b.group},
           {"bytes", b.bytes},
           {"us", b.us},
           {"gbps", b.gbps},
           {"share_of_copy", b.share_of_copy},
           {"same_size_copy_us", b.same_size_copy_us},
           {"share_of_same_size_copy", b.share_of_same_size_copy},
           {"same_size_copy_kernel_us", b.same_size_copy_kernel_us},
           {"share_of_same_size_copy_kernel", b.share_of_same_size_copy_kernel},
           {"alone_copy_kernel_us", b.alone_copy_kernel_us},
           {"reference_place", b.reference_place},
           {"held_to_target", b.held_to_target},
           {"meets_target", b.meets_target},
           {"alu_us", b.alu_us},
           {"share_of_issue_rate", b.share_of_issue_rate},
           {"bound", b.compute_bound ? "compute" : "memory"}});
    }
  }
  // A training unit's backward graph per mode, in the forward modes' form.
  if (!run.backward.empty()) {
    EngineRun backward;
    backward.modes = run.backward;
    j["backward"] = {{"graph", "backward"}, {"modes", to_json(backward)["modes"]}};
  }
  return j;
}

}  // namespace fxscope::gpu
