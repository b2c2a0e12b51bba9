#pragma once
// One fault costs one mode, never the run: an illegal address, a launch failure or an
// out-of-memory poisons the CUDA context of the process it happens in, so every later mode of
// that process would fail too. run_engine_isolated runs each mode in a child process of its own
// (fxscope-cli runs itself), which writes its measurements and its outputs to a result file;
// the parent, which never opens the device, reads them, reports a child that crashed or wrote
// nothing as that mode's error, and compares every mode's outputs with eager's.

#include <functional>
#include <string>
#include <vector>

#include "fxscope/core/child_process.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/engine_run.h"
#include "fxscope/gpu/output_compare.h"

namespace fxscope::gpu {

// The command that runs MODE of UNIT (the unit chosen, never empty) alone and writes RESULT_FILE
// (run_mode_child's side).
using ModeChildCommand = std::function<ChildCommand(
    const std::string& mode, const std::string& unit, const std::string& result_file)>;

// Runs each mode OPTIONS selects through COMMAND, one after another. Errors (one line) when
// nothing can run at all: an unreadable log, no such unit, no known mode, or a failure every
// mode would share (no driver or device, missing libraries) reported by the first child.
Result<EngineRun> run_engine_isolated(const EngineRunOptions& options,
                                      const ModeChildCommand& command);

// The child's side: runs OPTIONS (one mode) in this process and writes RESULT_FILE; a run that
// cannot start writes its error there. Returns the exit status for the child: 0 when the file
// was written, 1 when not (the error is also printed through OPTIONS.progress).
int run_mode_child(const EngineRunOptions& options, const std::string& result_file);

// The result file: a run of some modes and each mode's outputs (CBOR), or the error that kept
// the run from starting. Read back exactly as written; exposed for tests.
struct ModeResult {
  EngineRun run;
  std::vector<std::vector<HostOutput>> outputs;           // per mode of run.modes
  std::vector<std::vector<HostOutput>> backward_outputs;  // per mode of run.backward
  std::vector<HostOutput> reference_outputs;           // eager's graph run in f32 (f32_reference.h)
  std::vector<HostOutput> backward_reference_outputs;  // the same of eager's backward
  std::string fatal_error;  // set instead of run when the run could not start
};
std::string write_mode_result(const std::string& path, const ModeResult& result);  // "" or why not
Result<ModeResult> read_mode_result(const std::string& path);

}  // namespace fxscope::gpu
