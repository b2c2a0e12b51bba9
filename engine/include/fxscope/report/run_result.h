#pragma once
// A GPU run: per mode the measured totals and every kernel with the fusion group and post-grad
// nodes it was attributed to. Both backends of `fxscope-cli run` measure into it, and a saved
// `run --json` reads back into it without CUDA; the app overlays it on the graph and the CLI
// compares runs with it (report/run_attribution.h places its time on groups).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"

namespace fxscope::report {

// One kernel name of a mode, per call of the compiled unit (summed over a call's launches).
// Achieved bandwidth of a generated memory-bound kernel (engine runs): against a device-to-device
// copy measured in the same run; held_to_target when it moves enough bytes to be judged and is
// not compute-bound (issuing its instructions takes alu_us, longer than a same-size copy takes).
struct RunBandwidth {
  double bytes = 0;
  double gbps = 0;
  // The time a launch the verdict judged (fxscope's engine: the kernel's median call; older runs
  // wrote its mean); 0 in runs that did not write it.
  double us = 0;
  double share_of_copy = 0;
  bool held_to_target = false;
  bool meets_target = false;
  double alu_us = 0;           // 0 in runs written before fxscope estimated it
  bool compute_bound = false;  // "bound": "compute"
  // alu_us over the judged time: how near a compute-bound kernel runs to the issue rate.
  double share_of_issue_rate = 0;
  // A cudaMemcpy of the same bytes in the same run and the kernel's share of its bandwidth (0 in
  // runs that judged against the 256 MiB copy alone).
  double same_size_copy_us = 0;
  double share_of_same_size_copy = 0;
  // The same copy made by the reference copy kernel, and the kernel's share of it (0 in older
  // runs).
  double same_size_copy_kernel_us = 0;
  double share_of_same_size_copy_kernel = 0;
  // Where that copy was timed ("after group 10 ... (GEMM), in the CUDA graph", or "alone: <why>";
  // empty in runs that timed it alone only), and the same copy timed alone (0 in those runs).
  std::string reference_place;
  double alone_copy_kernel_us = 0;
  // The share the run's target judged and what it was of: the same-size copy kernel (runs with
  // "bandwidth_target": {"reference": "same_size_copy_kernel"}), else the same-size
  // cudaMemcpy, else the run's 256 MiB copy.
  double judged_share = 0;
  std::string judged_against;  // "copy kernel in its place", "copy kernel", "cudaMemcpy", ...
};

struct RunKernel {
  std::string name;
  std::string group;                      // the Inductor kernel it ran for; empty when unattributed
  std::vector<std::string> nodes;         // post-grad node names; empty when unattributed
  std::vector<std::string> dynamo_nodes;  // the user's own ops it computes, where known
  double us = 0;                          // per call, the mean over repeats
  double median_us = 0;  // per call, the median over repeats (fxscope's engine; 0 where absent)
  double calls = 0;
  std::array<int, 3> grid{};
  std::array<int, 3> block{};
  bool cuda_graph = false;
  std::optional<RunBandwidth> bandwidth;  // the mode's `bandwidth` entry of this kernel, if any
};

// One kernel launch of a mode's first call, as CUPTI timed it (nanoseconds on the device's
// clock; GRAPH is 0 outside CUDA graphs): what a Chrome trace of a fresh run lays out.
struct RunLaunch {
  std::string name;
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::array<int, 3> grid{};
  std::array<int, 3> block{};
  std::uint32_t stream = 0;
  std::uint32_t graph = 0;

  double us() const { return static_cast<double>(end - start) / 1000.0; }
};

// One mode as it ran: CUDA-event time of a call (median) and CUPTI's kernels.
struct RunMode {
  std::string mode;  // eager, default, reduce-overhead, max-autotune
  double total_us = 0;
  double total_min_us = 0;  // the fastest and slowest call (0 where the run did not write them)
  double total_max_us = 0;
  double kernel_us = 0;      // CUPTI kernel time of a call
  double attributed_us = 0;  // the part of kernel_us mapped to nodes
  double dynamo_us = 0;      // the part mapped on to Dynamo nodes
  double launches = 0;       // kernels a call
  double cuda_graph_launches = 0;
  std::size_t repeats = 0;
  std::vector<RunKernel> kernels;
  // The first call's launches in order; only a run measured in this process has them (the JSON
  // does not carry them).
  std::vector<RunLaunch> timeline;

  double attributed_share() const { return kernel_us > 0 ? attributed_us / kernel_us : 0.0; }
  double dynamo_share() const { return kernel_us > 0 ? dynamo_us / kernel_us : 0.0; }
  // The part of kernel_us spent in kernels replayed inside CUDA graphs (CUPTI's graph id), 0 to 1:
  // what reduce-overhead saves launches on; the rest (input copies, skipped graphs) launches.
  double cuda_graph_share() const;
};

// A run of one compile unit in one or more modes, by either backend (engine or pytorch).
struct RunResult {
  std::string backend;
  std::string device;
  std::string unit;  // compile id, "0/0"
  std::string torch_version;
  // Whether PyTorch's convolutions and matmuls ran in TF32; unset where the run did not say (the
  // engine, or a driver that ran PyTorch's defaults: TF32 convolutions, FP32 matmuls).
  std::optional<bool> allow_tf32;
  std::vector<RunMode> modes;

  // The mode named NAME; null when the run did not measure it.
  const RunMode* find_mode(std::string_view name) const;
};

// Parses the JSON TEXT of a run; WHERE names it in errors ("PATH: modes[1].kernels[0]: ...").
Result<RunResult> parse_run_result(std::string_view text, const std::string& where);
Result<RunResult> read_run_result(const std::string& path);

// The JSON `fxscope-cli run --json` prints, which parse_run_result reads back: the fields both
// backends share (the engine adds its own to it).
nlohmann::json to_json(const RunResult& run);

}  // namespace fxscope::report
