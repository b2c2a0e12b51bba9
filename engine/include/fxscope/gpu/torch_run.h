#pragma once
// The PyTorch backend of `fxscope-cli run`: runs fxscope_torch_driver.py on one compile unit as a
// child process with libfxscope_cupti.so injected, then maps every recorded kernel to groups and
// nodes. The JSON has the engine backend's schema plus backend, torch_version and shares.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/gpu/kernel_attribution.h"
#include "fxscope/report/run_result.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::gpu {

struct TorchRunOptions {
  std::string log_path;  // the TORCH_TRACE log (file)
  std::string unit;      // compile id, empty: the first with a runnable artifact
  std::string mode = "all";
  std::string python = "python3";
  std::string driver;            // fxscope_torch_driver.py
  std::string cupti_lib;         // libfxscope_cupti.so
  std::string work_dir;          // where the child's records, output and TORCH_TRACE go
  bool remove_work_dir = false;  // delete WORK_DIR when done, failed or not (a temp folder)
  // Let convolutions and matmuls use TF32 (the driver's --allow-tf32); off, they run full FP32.
  bool allow_tf32 = false;
  // Python modules the driver imports first (its --import): the user's code that registers the
  // custom ops a graph calls, which the log names but does not hold.
  std::vector<std::string> imports;
  // Called with each progress line while the driver runs (its own "fxscope-progress: " lines,
  // and Inductor's "AUTOTUNE ..." headers, which max-autotune prints for every GEMM and
  // convolution it tunes): a compile can take many minutes.
  std::function<void(const std::string&)> progress;
};

// Where the injection library and the driver are: the variable FXSCOPE_CUPTI_LIB /
// FXSCOPE_TORCH_DRIVER, else beside the running executable (installed), else the build tree.
std::string default_cupti_lib();
std::string default_torch_driver();

// A fresh folder for one run under the system's temp folder ("/tmp/fxscope-run-XXXXXX").
Result<std::string> make_temp_work_dir();

// The files the driver rebuilds unit UNIT from, in WORK_DIR: the first fx_graph_runnable (the
// forward's, in log order, as the driver reads a plain log) and the before_post_grad_graph after
// it, whose classes give the subgraphs the runnable writes as `<lambda>()` (a torch.cond's
// branches; written only where it has such). The driver then needs no decompression of its own.
// Empty paths where the unit has none (the driver then names the units that have a runnable).
struct RunnableFiles {
  std::string runnable;
  std::string graph;
};
Result<RunnableFiles> write_runnable(const trace::TraceLog& log, const std::string& unit,
                                     const std::string& work_dir);

// Runs the driver and attributes its kernels. Errors are one line: what is missing or failed.
Result<report::RunResult> run_pytorch(const TorchRunOptions& options);

// Attributes a run saved earlier with --work-dir again, with no GPU and no Python: WORK_DIR holds
// the driver's output (driver.out, driver.err), its CUPTI records (cupti.jsonl) and its
// TORCH_TRACE (trace/); LOG_PATH is the captured log the run was of. UNIT, when not empty, must be
// the unit the driver ran. An error names the missing or unreadable file.
Result<report::RunResult> attribute_work_dir(const std::string& log_path,
                                             const std::string& work_dir,
                                             const std::string& unit = {});

// Builds the run from the driver's JSON (its stdout) and the CUPTI records; INDEX holds the
// Inductor kernels of the captured unit and of the driver's own compiles.
Result<report::RunResult> assemble_run(const std::string& driver_json, const CuptiRecords& records,
                                       const KernelIndex& index);

}  // namespace fxscope::gpu
