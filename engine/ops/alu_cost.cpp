#include "fxscope/ops/alu_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "fxscope/ops/op_registry.h"

namespace fxscope::ops {
namespace {

// Slots per element, full precision, measured by bench/bench_alu_cost on the lent H200 (CUDA
// 13.0, sm_90), rounded. log10, asin, acos, sinh, cosh, erfc, silu, the backward ops
// and softmax are not measured: their figures are composed from the measured parts.
const std::map<std::string, double, std::less<>>& table() {
  static const std::map<std::string, double, std::less<>> t = {
      // Data movement and views: no arithmetic.
      {"view", 0},
      {"_unsafe_view", 0},
      {"reshape", 0},
      {"permute", 0},
      {"expand", 0},
      {"squeeze", 0},
      {"unsqueeze", 0},
      {"transpose", 0},
      {"t", 0},
      {"slice", 0},
      {"select", 0},
      {"clone", 0},
      {"copy", 0},
      {"copy_", 0},
      {"copy_", 0},
      {"alias", 0},
      {"getitem", 0},
      {"cat", 0},
      {"as_strided", 0},
      {"split", 0},
      {"split_with_sizes", 0},
      {"constant_pad_nd", 0},
      // Division and roots: a reciprocal approximation refined to IEEE rounding.
      {"div", 16},
      {"reciprocal", 12},
      {"sqrt", 12},
      {"rsqrt", 7},
      // Rounding goes through a slower pipe than adds and multiplies.
      {"floor", 7},
      {"ceil", 7},
      {"round", 7},
      {"trunc", 7},
      // Exponentials and logarithms.
      {"exp", 10},
      {"exp2", 7},
      {"expm1", 33},
      {"log", 33},
      {"log2", 35},
      {"log10", 33},
      {"log1p", 27},
      {"pow", 75},
      // Trigonometric and hyperbolic functions.
      {"sin", 27},
      {"cos", 28},
      {"tan", 26},
      {"tanh", 18},
      {"atan", 21},
      {"asin", 21},
      {"acos", 21},
      {"sinh", 25},
      {"cosh", 25},
      {"erf", 29},
      {"erfc", 29},
      // Composites: sigmoid and both GELUs as the prelude writes them (measured), then the sum of
      // their parts.
      {"sigmoid", 23},
      {"silu", 24},
      {"gelu", 32},
      {"gelu_backward", 45},
      {"sigmoid_backward", 3},
      {"tanh_backward", 3},
      {"_softmax", 28},
      {"_log_softmax", 12},
      // Reductions, per element read: Welford's running mean and variance.
      {"var_mean", 13},
      {"var", 13},
  };
  return t;
}

// The elements NODE computes: its output's, or for a reduction (and a multi-output node without
// an annotation of its own) its first input's.
double elements(const graph::Graph& graph, graph::NodeId id, const SymbolHints& hints) {
  const graph::Node& node = graph.node(id);
  const OpInfo* info = find_op(node.target);
  const bool reads_more = info != nullptr && reduces(info->lowering);
  const graph::Node* counted = &node;
  if ((reads_more || !node.meta) && !node.args.empty() && node.args[0].is_node()) {
    counted = &graph.node(node.args[0].as_node());
  }
  return counted->meta ? static_cast<double>(numel(*counted->meta, hints)) : 0.0;
}

// transformers' grouped_mm_fallback(input [M, K], weight [G, K, N], offs) as the engine runs it
// (codegen/grouped_mm_kernel.cpp): a thread per output element walks K, each step a load of its
// row's input (one line a warp: the warp's outputs share a row), a load of its column's weight
// through the weight's strides, and an FMA. The L1 serves a warp's load a 128-byte line a clock
// (Nsight Compute's wavefronts), while the SM issues 4 warp instructions a clock: each line a
// load touches costs what 4 instructions a lane do. Experts' weights are a transposed view
// (N apart by K elements), so each lane's column is its own line and a step is 133 slots, not
// the 2 FLOPs of a cuBLAS GEMM. A symbolic stride is taken as a line a lane.
double grouped_mm_slots(const graph::Graph& graph, graph::NodeId id, const SymbolHints& hints) {
  const graph::Node& node = graph.node(id);
  if (node.args.size() < 2 || !node.args[0].is_node() || !node.args[1].is_node() || !node.meta) {
    return elements(graph, id, hints);
  }
  const graph::Node& x = graph.node(node.args[0].as_node());
  const graph::Node& w = graph.node(node.args[1].as_node());
  if (!x.meta || !w.meta || x.meta->sizes.size() != 2 || w.meta->sizes.size() != 3) {
    return elements(graph, id, hints);
  }
  constexpr double kWarp = 32;
  constexpr double kLineBytes = 128;
  constexpr double kSlotsPerLine = 4;  // 128 lanes issued a clock over a warp's 32
  double weight_lines = kWarp;
  if (w.meta->strides.size() == 3 && !w.meta->strides[2].is_symbolic()) {
    const double span = kWarp * static_cast<double>(std::abs(w.meta->strides[2].value)) *
                        static_cast<double>(dtype_bytes(w.meta->dtype));
    weight_lines = std::clamp(std::ceil(span / kLineBytes), 1.0, kWarp);
  }
  const double k = static_cast<double>(eval_dim(x.meta->sizes[1], hints));
  const double per_step = 1 + kSlotsPerLine * (1 + weight_lines);
  return static_cast<double>(numel(*node.meta, hints)) * k * per_step;
}

}  // namespace

bool is_grouped_mm(std::string_view target) {
  return op_base_name(target) == "grouped_mm_fallback";
}

double alu_slots_per_element(std::string_view base) {
  const auto& t = table();
  const auto it = t.find(base);
  return it == t.end() ? 1.0 : it->second;
}

double alu_slots(const graph::Graph& graph, const std::vector<graph::NodeId>& nodes,
                 const SymbolHints& hints) {
  double slots = 0;
  for (const graph::NodeId id : nodes) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op()) continue;
    const OpInfo* info = find_op(node.target);
    if (info != nullptr && info->lowering == Lowering::view) continue;
    if (is_grouped_mm(node.target)) {
      slots += grouped_mm_slots(graph, id, hints);
      continue;
    }
    slots += alu_slots_per_element(op_base_name(node.target)) * elements(graph, id, hints);
  }
  return slots;
}

}  // namespace fxscope::ops
