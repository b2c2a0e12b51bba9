#pragma once
// The engine backend of `fxscope-cli run`: fxscope's own runtime re-runs one compile unit of a
// captured log in each mode on seeded random inputs (eager: one launch per op of the AOT graph;
// default: the plan's groups as generated CUDA C, cuBLASLt GEMMs, cuDNN convolutions and the
// runtime's attention kernel; reduce-overhead: the same captured into a CUDA graph;
// max-autotune: launch configurations and GEMM algorithms timed, the fastest kept, in a CUDA
// graph), times it with CUDA events and CUPTI, and checks every mode's outputs against eager's.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/gpu/kernel_attribution.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/gpu/value_digest.h"
#include "fxscope/report/run_result.h"

namespace fxscope::gpu {

struct EngineRun;

struct EngineRunOptions {
  std::string log_path;
  std::string unit;  // compile id; empty: the first unit with an ATen graph
  std::string mode = "all";
  int repeats = 20;
  int warmup = 5;
  std::uint64_t seed = 0;
  std::string cache_dir;  // NVRTC's on-disk cache; empty: the compiler's default
  // The result file of an eager mode that ran before (a mode's child process): a training unit's
  // backward is fed eager's saved tensors, as it is when eager runs in this process, so that each
  // mode's backward is checked on the same inputs and a relu mask that flipped at a rounding
  // boundary in the forward does not count against the backward.
  std::string eager_result;
  std::function<void(const std::string&)> progress;  // one line at a time, for stderr
  // Called after each mode with the run so far and that mode's outputs, before the device is let
  // go: a mode's child process writes its result here, so a crash while the CUDA context of a
  // faulted mode is torn down loses nothing.
  // The second outputs are the backward's (gradients) in a training unit, else empty.
  std::function<void(const EngineRun&, const std::vector<HostOutput>&,
                     const std::vector<HostOutput>&)>
      mode_done;
};

// Ops of a mode's graph the runtime ran, and the groups it could not.
struct Coverage {
  std::size_t ops = 0;
  std::size_t ran = 0;
  std::vector<std::string> missing;  // "group 7 aten.sort: no runtime for ..."
};

// A memory-bound generated kernel's achieved bandwidth.
struct KernelBandwidth {
  std::string name;
  std::string group;
  double bytes = 0;
  double us = 0;
  double gbps = 0;
  double share_of_copy = 0;  // against the (256 MiB) copy bandwidth measured in the same run
  // A cudaMemcpy of the same bytes, timed by CUPTI in the same run, and the kernel's share of
  // its bandwidth (same_size_copy_us / us). Launch ramp and tail (~1.5-2 us on an H200) cap a
  // copy of 19 MB at 76% of the 256 MiB copy's bandwidth, so only a copy of the same size says
  // how far the kernel's memory access is from the best.
  double same_size_copy_us = 0;
  double share_of_same_size_copy = 0;
  // The same copy made by fxscope's copy kernels (gpu/reference_kernels.h: one or four 16-byte
  // words a thread, the faster at this size), and the kernel's share of it: what the target
  // judges. A kernel is judged against what a kernel does through the same launch: below 3 MB
  // cudaMemcpy's CUPTI time left every kernel behind, the plain copy kernel included (69% at
  // 2.4 MB), and it was bimodal (1.6-2.0 or 5.5-6.0 us for 1.2 MB in bench_memory_kernels).
  // Timed in the kernel's place (copy_in_place.h): right after the step before it, launched as
  // the mode launches (in its CUDA graph, or on the stream); REFERENCE_PLACE says where, or why it
  // was timed alone. ALONE_COPY_KERNEL_US is the same copy timed by itself on a stream.
  double same_size_copy_kernel_us = 0;
  double share_of_same_size_copy_kernel = 0;
  double alone_copy_kernel_us = 0;
  std::string reference_place;
  // Held to kBandwidthTarget when it moves at least kBandwidthMinBytes, is not compute-bound
  // and its same-size copy kernel was measured; meets it at kBandwidthTarget of that copy.
  bool held_to_target = false;
  bool meets_target = false;
  // Issuing its instructions alone takes alu_us (ops/alu_cost.h, at the device's peak clock);
  // compute-bound when that is longer than the same-size copy takes (ops::compute_bound, the
  // roofline's ridge): its bound is the issue rate, so it is not held to the bandwidth target, and
  // share_of_issue_rate (alu_us / us) says how near it runs to that bound instead.
  double alu_us = 0;
  bool compute_bound = false;
  double share_of_issue_rate = 0;
  std::size_t step = 0;  // the plan step that launched it (Executable::steps())
};
inline constexpr double kBandwidthTarget = 0.70;
inline constexpr double kBandwidthMinBytes = 1 << 20;

struct EngineMode {
  report::RunMode measured;  // the schema the PyTorch backend shares
  bool ran = false;
  std::string error;  // why it did not run, or failed part way (names the group)
  Coverage coverage;
  std::optional<double> max_rel_err;  // against eager; absent for eager or when incomparable
  std::vector<double> rel_errs;       // per output
  double tolerance = 0;
  bool flagged = false;  // an output's error is above its dtype's tolerance
  // Outputs above the tolerance yet no further from an f32 run of eager's graph than PyTorch's
  // bound (f32_reference.h): not flagged. The largest such distance, and eager's beside it.
  std::size_t near_reference = 0;
  // Outputs not compared: they depend on a group that did not run here or in eager (the first
  // such group's reason, and whether it was eager's).
  std::size_t outputs_not_compared = 0;
  std::string not_compared_why;
  bool not_compared_in_eager = false;
  double reference_distance = 0;
  double eager_reference_distance = 0;
  std::size_t peak_bytes = 0;
  std::size_t unplanned_bytes = 0;  // what the same buffers need without reuse
  double host_launch_us = 0;        // host time to issue one call's launches (median)
  bool cuda_graph = false;
  std::vector<std::string> picks;  // max-autotune's choices
  std::vector<KernelBandwidth> bandwidth;
  // What each step wrote in the first (checked) launch, digested: the comparison with eager names
  // from them the first value outside tolerance. Not part of the CLI's JSON.
  std::vector<ValueDigest> values;
};

struct EngineRun {
  std::string device;
  std::string unit;
  std::string cuda_version;     // "13.0 (driver 13.0)": the runtime linked in, the driver found
  std::string cudnn;            // where cuDNN was found, empty if not
  double copy_gbps = 0;         // device-to-device copy, bytes read + written per second
  double alu_slots_per_us = 0;  // issue slots the device retires (ops/alu_cost.h), peak clock
  double empty_kernel_us = 0;   // CUPTI's duration of an empty kernel: what every launch costs
  Coverage coverage;            // of the default mode's (post-grad) graph
  std::vector<EngineMode> modes;
  // A training unit's backward graph per mode that ran its forward, fed the forward's saved
  // tensors (the compiled autograd function's order); empty for an inference unit.
  std::vector<EngineMode> backward;
  std::vector<std::string> notes;
};

// Runs OPTIONS.unit of the log. Errors (one line) when nothing can run at all: no driver or
// device, no such unit, no ATen graph; a mode that fails is reported in its EngineMode.
Result<EngineRun> run_engine(const EngineRunOptions& options);

// The JSON of the PyTorch backend (same fields) plus backend "engine", coverage, max_rel_err,
// peak_bytes, host launch time, picks and bandwidth per mode.
nlohmann::json to_json(const EngineRun& run);
// The modes that were measured, as a run of backend "engine": what the Chrome trace, `compare`
// and the app read.
report::RunResult run_result(const EngineRun& run);

}  // namespace fxscope::gpu
