#include "fxscope/ops/alu_cost.h"

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

}  // namespace

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
    slots += alu_slots_per_element(op_base_name(node.target)) * elements(graph, id, hints);
  }
  return slots;
}

}  // namespace fxscope::ops
