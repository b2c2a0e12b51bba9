#pragma once
// Kernels PyTorch ran, mapped back to fusion groups and graph nodes: eager kernels by the NVTX
// range of the op that launched them, compiled kernels by Inductor's kernel name, extern kernels
// (cuBLAS and other libraries) by their place between the named kernels in launch order.

#include <array>
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "fxscope/gpu/cupti_records.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::gpu {

// One kernel of an Inductor plan: its name and the post-grad nodes it runs.
struct PlanKernel {
  std::string name;
  std::vector<std::string> nodes;
  bool is_extern = false;
};

// Inductor's kernels of one or more units, in launch order per plan, and by name.
struct KernelIndex {
  std::vector<std::vector<PlanKernel>> plans;
  std::unordered_map<std::string, std::pair<std::size_t, std::size_t>> by_name;  // plan, kernel

  // Adds the Inductor kernels of every post-grad graph of UNIT (a plan each).
  void add_unit(const trace::CompileUnit& unit);
};

// One kernel name of a mode, summed over the repeats and divided by their number.
struct MeasuredKernel {
  std::string name;
  std::string group;               // empty when unattributed
  std::vector<std::string> nodes;  // empty when unattributed
  double us = 0.0;                 // per repeat
  double calls = 0.0;              // per repeat
  std::array<int, 3> grid{};
  std::array<int, 3> block{};
  bool in_cuda_graph = false;
};

// One mode as PyTorch ran it.
struct ModeMeasurement {
  std::string mode;
  double total_us = 0.0;  // CUDA events around a call, median over repeats
  double total_min_us = 0.0;
  double total_max_us = 0.0;
  std::size_t repeats = 0;
  double kernel_us = 0.0;       // CUPTI kernel time per repeat
  double attributed_us = 0.0;   // the part of kernel_us mapped to nodes
  double launches = 0.0;        // kernels per repeat
  double graph_launches = 0.0;  // of which inside CUDA graphs
  std::vector<MeasuredKernel> kernels;
  std::vector<KernelRecord> timeline;  // the first repeat's kernels, for a Chrome trace

  double attributed_share() const { return kernel_us > 0 ? attributed_us / kernel_us : 0.0; }
};

// The kernels of RECORDS launched inside the NVTX ranges named PREFIX + i, attributed through
// INDEX (compiled modes) or the ops' NVTX ranges (eager).
ModeMeasurement attribute_mode(const std::string& mode, const std::string& prefix,
                               const CuptiRecords& records, const KernelIndex& index);

}  // namespace fxscope::gpu
