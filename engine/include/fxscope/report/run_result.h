#pragma once
// A GPU run as `fxscope-cli run --json` prints it, read back: per mode the measured totals and
// every kernel with the fusion group and post-grad nodes it was attributed to. The app overlays
// it on the graph and the CLI compares runs with it, so the reader lives here and not in a view.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// One mode as it ran: CUDA-event time of a call (median) and CUPTI's kernels.
struct RunMode {
  std::string mode;  // eager, default, reduce-overhead, max-autotune
  double total_us = 0;
  double kernel_us = 0;
  double attributed_us = 0;
  double dynamo_us = 0;  // the part mapped to Dynamo nodes
  double launches = 0;
  double cuda_graph_launches = 0;
  std::size_t repeats = 0;
  std::vector<RunKernel> kernels;

  // Measured time per post-grad node: each kernel's time shared evenly by the nodes it ran, so
  // that summing over any set of nodes (a planned group) never counts a kernel twice.
  std::unordered_map<std::string, double> time_per_node() const;
};

struct RunResult {
  std::string backend;
  std::string device;
  std::string unit;  // compile id, "0/0"
  std::string torch_version;
  std::vector<RunMode> modes;

  // The mode named NAME; null when the run did not measure it.
  const RunMode* find_mode(std::string_view name) const;
};

// Parses the JSON TEXT of a run; WHERE names it in errors ("PATH: modes[1].kernels[0]: ...").
Result<RunResult> parse_run_result(std::string_view text, const std::string& where);
Result<RunResult> read_run_result(const std::string& path);

}  // namespace fxscope::report
