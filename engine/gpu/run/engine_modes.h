#pragma once
// The two halves of an engine run: running the selected modes (in this process: each mode's
// outputs kept on the host), and checking every mode's outputs against eager's. run_engine does
// both in one process; run_engine_isolated runs each mode in a child and checks in the parent.

#include <memory>
#include <string>
#include <vector>

#include "fxscope/gpu/engine_run.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/ops/op_cost.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::gpu {

struct ModesRun {
  EngineRun run;
  std::vector<std::vector<HostOutput>> outputs;  // per mode of run.modes; empty where it failed
  std::vector<std::vector<HostOutput>> backward_outputs;  // per mode of run.backward
  std::vector<HostOutput> reference_outputs;  // eager's graph in f32, when it holds bf16 or f16
  std::vector<HostOutput> backward_reference_outputs;  // the same of eager's backward
  ops::SymbolHints hints;                              // the unit's symbol values
};

// Runs OPTIONS.mode (one mode, a list or all) without comparing outputs.
Result<ModesRun> run_modes(const EngineRunOptions& options);

// Fills each mode's max_rel_err, rel_errs, tolerance and flagged against the mode named eager
// (when it ran completely), notes the modes that were not compared, and sets RUN.coverage (the
// default mode's, else the first mode's).
// REFERENCE (eager's graph run in f32; may be empty) clears an output outside the tolerance that
// is no further from it than PyTorch's bound (near_as_eager_to_reference).
void compare_with_eager(EngineRun& run, const std::vector<std::vector<HostOutput>>& outputs,
                        const ops::SymbolHints& hints,
                        const std::vector<HostOutput>& reference = {});
// The same for the backward graphs' gradients, against eager's backward.
void compare_backward_with_eager(EngineRun& run,
                                 const std::vector<std::vector<HostOutput>>& outputs,
                                 const ops::SymbolHints& hints,
                                 const std::vector<HostOutput>& reference = {});

// The unit OPTIONS names (or the first with an ATen graph) and its symbol hints, read from the
// log; the error names the log and the unit.
struct UnitOfRun {
  std::unique_ptr<trace::TraceLog> log;
  const trace::CompileUnit* unit = nullptr;
  ops::SymbolHints hints;
};
Result<UnitOfRun> find_run_unit(const EngineRunOptions& options);

// "all", one mode, or a comma-separated list, in the order eager, default, reduce-overhead,
// max-autotune (eager first: the reference); empty when none is known.
std::vector<std::string> selected_modes(const std::string& mode);

}  // namespace fxscope::gpu
