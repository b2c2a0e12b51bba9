#pragma once
// What computing an op costs the GPU's cores, per element, in issue slots (one warp instruction
// issued for one thread's element: an SM issues 128 a clock). Plain arithmetic is 1; CUDA's
// full-precision math is many: a fused chain of sin, exp, tanh and divisions spends more time
// issuing instructions than moving its bytes, so it is compute-bound although every op of it is
// memory-bound alone. The engine's run uses this to say which generated kernels a bandwidth
// target can hold. The figures are measured by bench/bench_alu_cost on an H200.

#include <string_view>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::ops {

// Issue slots per element of the op Inductor names BASE ("sin", "div", "var_mean"): 1 for plain
// arithmetic and ops the table lacks, 0 for views and data movement.
double alu_slots_per_element(std::string_view base);

// Whether TARGET is transformers' grouped_mm_fallback, a GEMM per expert that no library runs:
// the engine generates a thread-per-output kernel for it, whose slots alu_slots counts by its
// loads (grouped_mm_slots), and op_cost counts its GEMM's FLOPs.
bool is_grouped_mm(std::string_view target);

// Issue slots of computing each of NODES once: a node's slots per element times its elements (a
// reduction's: its input's, the elements it reads).
double alu_slots(const graph::Graph& graph, const std::vector<graph::NodeId>& nodes,
                 const SymbolHints& hints);

// Issue slots a device retires per microsecond: SMS x 128 lanes x CLOCK_KHZ / 1000.
inline double alu_slots_per_us(int sms, int clock_khz) {
  return static_cast<double>(sms) * 128.0 * static_cast<double>(clock_khz) / 1000.0;
}

// A kernel is compute-bound when issuing its instructions (ALU_US) takes longer than moving its
// BYTES at COPY_GBPS: it sits right of the roofline's ridge, and its bound is the issue rate, not
// memory. The line is the ridge itself, not a target's share of the copy (ALU_US > copy / 0.7):
// that would hold a kernel between the two to a bandwidth it could reach only at the full issue
// rate, and pointwise_chain's 12-op kernel (15.05 us of instructions against 15.06 allowed) would
// cross the line from run to run. False when the copy bandwidth or the bytes are unknown (a kernel
// reading only scratch the plan does not count).
inline bool compute_bound(double alu_us, double bytes, double copy_gbps) {
  return bytes > 0 && copy_gbps > 0 && alu_us > bytes / (copy_gbps * 1e3);
}

}  // namespace fxscope::ops
