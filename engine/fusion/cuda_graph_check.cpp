// The reasons Inductor gives for not capturing a CUDA graph (torch/_inductor/cudagraph_utils.py).

#include "fxscope/fusion/cuda_graph_check.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "fxscope/core/text.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

bool has_symbolic_size(const graph::TensorMeta& meta) {
  for (const graph::Dim& d : meta.sizes) {
    if (d.is_symbolic()) return true;
  }
  return false;
}

// The position among the compiled function's inputs of placeholder NAME: AOT names a training
// graph's inputs primals_1.. (and a backward keeps those names for what it saves), an inference
// graph's arg0_1..; nullopt for any other name (tangents, saved activations).
std::optional<std::size_t> input_position(std::string_view name) {
  if (text::starts_with(name, "primals_")) {
    const auto k = text::parse_int(name.substr(8));
    if (k && *k >= 1) return static_cast<std::size_t>(*k - 1);
  } else if (text::starts_with(name, "arg") && text::ends_with(name, "_1")) {
    const auto j = text::parse_int(name.substr(3, name.size() - 5));
    if (j && *j >= 0) return static_cast<std::size_t>(*j);
  }
  return std::nullopt;
}

// Whether NODE, an in-place op, writes a graph input other than a static one: its first argument
// is a placeholder, or a view of one. Inductor's cudagraph trees skip a graph only for mutated
// inputs that are not static; an in-place op on a buffer the graph made itself (index_put_ into a
// fresh zeros) keeps the capture.
bool mutates_input(const graph::Graph& graph, const graph::Node& node,
                   const std::set<std::size_t>& static_inputs) {
  static const std::set<std::string_view> kViews = {
      "view",      "_unsafe_view", "slice",  "select",  "as_strided", "permute", "transpose",
      "unsqueeze", "squeeze",      "expand", "reshape", "t",          "alias",   "diagonal"};
  const graph::Node* target = &node;
  for (int hops = 0; hops < 64; ++hops) {
    if (target->args.empty() || !target->args.front().is_node()) return false;
    target = &graph.node(target->args.front().as_node());
    if (target->op == graph::OpKind::placeholder) {
      const auto position = input_position(target->name);
      return !position || !static_inputs.contains(*position);
    }
    if (!target->is_op() || !kViews.contains(ops::op_base_name(target->target))) return false;
  }
  return false;
}

// Whether any tensor NODE takes is on a GPU (Inductor's is_triton over the predicate and operands).
bool on_gpu(const graph::Graph& graph, const graph::Node& node) {
  bool gpu = false;
  for (const graph::Argument& a : node.args) {
    a.for_each_node([&](graph::NodeId in) {
      const auto& m = graph.node(in).meta;
      if (m && !m->is_sym_scalar() && text::starts_with(m->device, "cuda")) gpu = true;
    });
  }
  return gpu;
}

}  // namespace

std::set<std::size_t> cudagraph_static_inputs(const trace::CompileUnit& unit) {
  std::set<std::size_t> out;
  const trace::Artifact* dynamo = unit.dynamo_graph();
  if (dynamo == nullptr) return out;
  const graph::ParsedGraph parsed = graph::parse_fx_readable(dynamo->payload.text(), dynamo->name);
  std::size_t position = 0;
  for (const graph::Node& node : parsed.graph.nodes()) {
    if (node.op != graph::OpKind::placeholder) continue;
    if (node.name.find("_parameters_") != std::string::npos ||
        node.name.find("_buffers_") != std::string::npos) {
      out.insert(position);
    }
    ++position;
  }
  return out;
}

CudaGraphVerdict check_cuda_graphs(const graph::Graph& graph,
                                   const std::set<std::size_t>& static_inputs) {
  CudaGraphVerdict verdict;
  std::set<std::string> devices;
  std::vector<std::string> mutations;
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
    } else if (runs_subgraphs(node.target) && on_gpu(graph, node)) {
      // lowering.cond and lowering.while_loop set disable_cudagraphs_reason when a predicate or
      // operand is on the GPU: the wrapper reads the predicate on the host (`pred.item()`).
      verdict.reasons.push_back("control flow operator torch." +
                                std::string(ops::op_base_name(node.target)) + " " + node.name +
                                " chooses its branch on the host");
    } else if (base == "get_rng_state" || base == "set_rng_state") {
      // Not inductor_seeds or philox_rand: CUDA graph trees register the generator's state with
      // the graph and refill its seed and offset before each replay (two fills outside the
      // graph, measured on residual_mlp_train), so dropout's RNG does not stop a capture.
      verdict.reasons.push_back("RNG state op " + node.name);
    } else if (text::starts_with(node.target, "torch.ops.higher_order.auto_functionalized") ||
               ((text::ends_with(base, "_") || base == "copy_") &&
                mutates_input(graph, node, static_inputs))) {
      mutations.push_back(node.name);
    }
  }
  if (mutations.size() == 1) {
    verdict.reasons.push_back("mutation of an input by " + mutations.front());
  } else if (!mutations.empty()) {
    constexpr std::size_t kNamed = 3;
    std::string text = "mutation of " + std::to_string(mutations.size()) + " inputs, by ";
    for (std::size_t i = 0; i < std::min(kNamed, mutations.size()); ++i) {
      text += (i ? ", " : "") + mutations[i];
    }
    if (mutations.size() > kNamed) {
      text += " and " + std::to_string(mutations.size() - kNamed) + " more";
    }
    verdict.reasons.push_back(text);
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
