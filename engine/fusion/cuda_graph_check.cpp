// The reasons Inductor gives for not capturing a CUDA graph (torch/_inductor/cudagraph_utils.py).

#include "fxscope/fusion/cuda_graph_check.h"

#include <set>
#include <string>

#include "fxscope/core/text.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

bool has_symbolic_size(const graph::TensorMeta& meta) {
  for (const graph::Dim& d : meta.sizes) {
    if (d.is_symbolic()) return true;
  }
  return false;
}

// Whether NODE, an in-place op, writes a graph input: its first argument is a placeholder, or a
// view of one. Inductor's cudagraph trees skip a graph only for mutated inputs; an in-place op on
// a buffer the graph made itself (index_put_ into a fresh zeros) keeps the capture.
bool mutates_input(const graph::Graph& graph, const graph::Node& node) {
  static const std::set<std::string_view> kViews = {
      "view",      "_unsafe_view", "slice",  "select",  "as_strided", "permute", "transpose",
      "unsqueeze", "squeeze",      "expand", "reshape", "t",          "alias",   "diagonal"};
  const graph::Node* target = &node;
  for (int hops = 0; hops < 64; ++hops) {
    if (target->args.empty() || !target->args.front().is_node()) return false;
    target = &graph.node(target->args.front().as_node());
    if (target->op == graph::OpKind::placeholder) return true;
    if (!target->is_op() || !kViews.contains(ops::op_base_name(target->target))) return false;
  }
  return false;
}

}  // namespace

CudaGraphVerdict check_cuda_graphs(const graph::Graph& graph) {
  CudaGraphVerdict verdict;
  std::set<std::string> devices;
  bool dynamic = false;
  for (const graph::Node& node : graph.nodes()) {
    if (node.meta && !node.meta->is_sym_scalar()) {
      if (!node.meta->device.empty()) devices.insert(node.meta->device);
      if (node.meta->device == "cpu" && node.op == graph::OpKind::placeholder) {
        verdict.reasons.push_back("CPU tensor " + node.name);
      }
      dynamic = dynamic || has_symbolic_size(*node.meta);
    }
    if (!node.is_op()) continue;
    const std::string_view base = ops::op_base_name(node.target);
    if (base == "_local_scalar_dense" || base == "item") {
      verdict.reasons.push_back(".item()-like op " + node.name + " reads a value on the host");
    } else if (base == "get_rng_state" || base == "set_rng_state") {
      // Not inductor_seeds or philox_rand: CUDA graph trees register the generator's state with
      // the graph and refill its seed and offset before each replay (two fills outside the
      // graph, measured on residual_mlp_train), so dropout's RNG does not stop a capture.
      verdict.reasons.push_back("RNG state op " + node.name);
    } else if (text::starts_with(node.target, "torch.ops.higher_order.auto_functionalized") ||
               ((text::ends_with(base, "_") || base == "copy_") && mutates_input(graph, node))) {
      verdict.reasons.push_back("mutation of an input by " + node.name);
    }
  }
  if (devices.size() > 1) verdict.reasons.push_back("tensors on several devices");
  if (dynamic) {
    // Not a refusal: Inductor records one graph per distinct input shape.
    verdict.reasons.push_back("dynamic shapes: a new input shape records a new CUDA graph");
  }
  verdict.usable = verdict.reasons.empty() || (dynamic && verdict.reasons.size() == 1);
  return verdict;
}

}  // namespace fxscope::fusion
