// generate(): picks the nodes a group's kernel computes and the buffers it writes, then hands
// the group to the builder of its kind.

#include "fxscope/codegen/kernel_codegen.h"

#include <algorithm>
#include <cctype>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"
#include "reduction_shape.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// The buffers of NODE: itself, or for a tuple result (var_mean, pooling with offsets) the
// getitems that pick its outputs.
void add_buffers(const graph::Graph& graph, NodeId node, std::vector<NodeId>& out) {
  if (graph.node(node).meta) {
    out.push_back(node);
    return;
  }
  for (NodeId u = node + 1; u < graph.size(); ++u) {
    const graph::Node& n = graph.node(u);
    if (ops::op_key(n.target) == "operator.getitem" && n.meta && !n.args.empty() &&
        n.args[0].is_node() && n.args[0].as_node() == node) {
      out.push_back(u);
    }
  }
}

}  // namespace

std::string c_name(const std::string& name) {
  std::string out;
  for (const char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

Result<GeneratedKernel> generate(const graph::Graph& graph, const fusion::KernelGroup& group,
                                 const CodegenOptions& options) {
  const std::string where = "group " + std::to_string(group.id) + " " + group.name;
  const auto generated_extern = lone_generated_extern(graph, group);
  if ((group.kind == fusion::GroupKind::extern_kernel && !generated_extern) ||
      group.kind == fusion::GroupKind::template_gemm) {
    return make_error(where + ": " + std::string(fusion::to_string(group.kind)) +
                      " groups run on a library kernel, not generated code");
  }
  if (group.kind == fusion::GroupKind::combo) {
    return make_error(where +
                      ": a combo kernel (foreach sub-kernels in one launch) has no "
                      "generated code yet");
  }
  for (const NodeId n : group.nodes) {
    if (n >= graph.size())
      return make_error(where + ": names node " + std::to_string(n) + " outside the graph");
  }
  KernelContext ctx{graph,
                    group,
                    options.hints,
                    options.config.value_or(LaunchConfig{}),
                    !options.config.has_value(),
                    where,
                    "fx_" + c_name(group.name) + "_g" + std::to_string(group.id),
                    {},
                    {},
                    options.clusters,
                    options.run_seed};
  std::set<NodeId> inputs(group.inputs.begin(), group.inputs.end());
  // A pointwise kernel iterates over its outputs' elements. A reduction among its nodes with
  // another number of elements was computed elsewhere (Inductor's origins of a convolution's
  // bias epilogue include the mean the convolution read; a mean's division lists the mean); one
  // of as many elements, or alone, is unrolled into this kernel (Inductor's triton_poi_fused_sum
  // over a dim of 2), and computed here.
  std::int64_t iteration = 0;
  for (const NodeId o : group.outputs) {
    if (o >= graph.size() || is_reduction(graph.node(o))) continue;
    // A Scatter iterates over its values, not over the buffer it stores into.
    if (is_index_put(graph.node(o))) {
      if (const auto s = scatter_shape(graph, o, options.hints)) {
        iteration = std::max(iteration, s->numel());
      }
      continue;
    }
    const auto s = shape_of(graph.node(o), options.hints);
    if (s) iteration = std::max(iteration, s->numel());
  }
  // A sum, mean, product, max or min over fewer elements than the unroll threshold: Inductor's
  // Reduction.create lowers it as a Pointwise that combines the few elements inline.
  const auto unrolled = [&](NodeId n) {
    if (!is_reduction(graph.node(n))) return false;
    const auto r = reduction_shape(graph, n, options.hints);
    return r && r->rnumel < kUnrolledReductionLimit &&
           (r->combine == Combine::sum || r->combine == Combine::mean ||
            r->combine == Combine::prod || r->combine == Combine::max ||
            r->combine == Combine::min);
  };
  // Such a reduction in a pointwise group, over rows of its own (a router's top-k weights summed
  // over k): the group's kernel computes it where it reads it.
  const auto unrolled_beside = [&](NodeId n) {
    if (group.kind != fusion::GroupKind::pointwise || iteration == 0) return false;
    const auto s = shape_of(graph.node(n), options.hints);
    return s && s->numel() != iteration && unrolled(n);
  };
  const auto elsewhere_in_pointwise = [&](NodeId n) {
    if (group.kind != fusion::GroupKind::pointwise || iteration == 0) return false;
    if (unrolled_beside(n)) return false;
    // A softmax's statistics over a few elements (a router's experts): Inductor's unrolled
    // Pointwise computes them where the group reads them.
    if (ops::op_base_name(graph.node(n).target) == "prepare_softmax_online") {
      const auto r = reduction_shape(graph, n, options.hints);
      if (r && r->rnumel < kUnrolledReductionLimit) return false;
    }
    const auto s = shape_of(graph.node(n), options.hints);
    return !s || s->numel() != iteration;
  };
  // What the group's stores need: its outputs and, back from them, the nodes of the group they
  // are computed from (a library call's output is loaded, so what it read is not needed here).
  std::set<NodeId> nodes(group.nodes.begin(), group.nodes.end());
  std::set<NodeId> needed;
  std::vector<NodeId> stack(group.outputs.begin(), group.outputs.end());
  while (!stack.empty()) {
    const NodeId n = stack.back();
    stack.pop_back();
    if (n >= graph.size() || !needed.insert(n).second) continue;
    if (inputs.count(n) || !nodes.count(n) || ops::runs_in_library(graph.node(n).target)) continue;
    for (const NodeId a : graph.inputs(n)) stack.push_back(a);
  }
  // Where a store needs one of the group's reductions, a reduction no store needs was computed
  // elsewhere (an SE block's mean among the origins of a convolution's bias epilogue, fused into
  // a layer norm over other rows). A split's first pass stores only partial states, so needs none.
  const bool needs_a_reduction = std::any_of(group.nodes.begin(), group.nodes.end(), [&](NodeId n) {
    return is_reduction(graph.node(n)) && needed.count(n) && !inputs.count(n);
  });
  for (const NodeId n : group.nodes) {
    // A reduction the group reads (a var_mean whose variance it uses) was computed elsewhere.
    const bool computed_elsewhere =
        is_reduction(graph.node(n)) &&
        (inputs.count(n) || elsewhere_in_pointwise(n) || (needs_a_reduction && !needed.count(n)));
    // A Triton sort (ir.Sort) is computed by the group that stores it; elsewhere it is an origin
    // of its int64 indices, which are loaded. A sort over one element is a Pointwise copy
    // (fusion::trivial_sort), computed where it is read like any other.
    const bool sort_elsewhere =
        !generated_extern && is_sort_or_topk(graph.node(n)) && !fusion::trivial_sort(graph, n) &&
        std::find(group.outputs.begin(), group.outputs.end(), n) == group.outputs.end();
    if (!computed_elsewhere && !sort_elsewhere && !ops::runs_in_library(graph.node(n).target)) {
      ctx.members.insert(n);
    }
  }
  if (!generated_extern) {
    for (const NodeId n : ctx.members) {
      if (!is_sort_or_topk(graph.node(n)) || fusion::trivial_sort(graph, n)) continue;
      for (const NodeId o : group.outputs) add_buffers(graph, o, ctx.writes);
      return sort_kernel(ctx, n);
    }
  }
  if (generated_extern) {
    add_buffers(graph, *generated_extern, ctx.writes);
    const graph::Node& op = graph.node(*generated_extern);
    if (is_sort_or_topk(op)) return sort_kernel(ctx, *generated_extern);
    if (is_histc(op)) return histc_kernel(ctx, *generated_extern);
    if (is_scatter(op)) return scatter_kernel(ctx, *generated_extern);
    if (is_grouped_mm(op)) return grouped_mm_kernel(ctx, *generated_extern);
    if (is_nonzero(op)) return nonzero_kernel(ctx, *generated_extern);
    return lstm_cell_kernel(ctx, *generated_extern);
  }
  if (group.kind == fusion::GroupKind::eager_op) {
    // One op, or one op and the casts before it that it reads unrounded (dropout's comparison
    // of its draw: fusion::plan_eager).
    for (std::size_t k = 0; k + 1 < group.nodes.size(); ++k) {
      if (ops::op_base_name(graph.node(group.nodes[k]).target) != "convert_element_type") {
        return make_error(where + ": an eager op group has one op and the casts it reads");
      }
    }
    const NodeId n = group.nodes.back();
    const ops::OpInfo info = ops::classify(graph.node(n).target);
    if (fusion::export_composite_op(graph.node(n).target)) {
      return make_error(where + ": " + std::string(ops::op_key(graph.node(n).target)) + " is " +
                        std::string(fusion::kExportCompositeNoRuntime));
    }
    if (!has_generated_kernel(graph, group)) {
      const std::string op(ops::op_key(graph.node(n).target));
      if (fusion::user_triton_kernel(graph.node(n).target)) {
        return make_error(where + ": " + op + " is " +
                          std::string(fusion::kUserTritonKernelNoRuntime));
      }
      if (fusion::custom_op_fallback(graph.node(n).target)) {
        return make_error(where + ": " + op + " is " + std::string(fusion::kCustomOpNoRuntime));
      }
      if (op.starts_with("higher_order.")) {
        // torch.cond, while_loop, a user's Triton kernel, flex attention: a subgraph or a kernel
        // the log does not hold as code this engine runs.
        return make_error(where + ": " + op + " is a higher-order op, which has no runtime here");
      }
      return make_error(where + ": " + op +
                        " runs on a library kernel or ATen, not generated code");
    }
    add_buffers(graph, n, ctx.writes);
    if (is_index_put(graph.node(n))) return index_put_kernel(ctx, n);
    if (info.lowering == ops::Lowering::scan) return scan_kernel(ctx);
    if (is_composite(graph.node(n))) return composite_kernel(ctx);
    if (is_reduction(graph.node(n))) return reduction_kernel(ctx);
    return pointwise_kernel(ctx);
  }
  for (const NodeId o : group.outputs) {
    // A reduction computed elsewhere is read here, not written (an SE block's mean among a
    // pointwise kernel's origins: the mean's own kernel stores it).
    if (is_reduction(graph.node(o)) && !ctx.members.count(o)) continue;
    add_buffers(graph, o, ctx.writes);
  }
  if (group.note == "scan") return scan_kernel(ctx);
  bool reduces = false;
  // Beside one computed inline, the group is Inductor's unrolled Pointwise: every few-element
  // reduction in it is inline too, none makes it a reduction kernel. So is a pointwise group's
  // few-element reduction of the group's own size (Reduction.create lowers it as a Pointwise):
  // as a row reduction, a load of it at another element (rotary's backward reads the sum at the
  // element half a head away, a Scatter its values at permuted positions) would take the row's
  // own sum.
  const bool inline_reductions =
      std::any_of(ctx.members.begin(), ctx.members.end(), unrolled_beside) ||
      (group.kind == fusion::GroupKind::pointwise &&
       std::any_of(ctx.members.begin(), ctx.members.end(), unrolled));
  for (const NodeId n : ctx.members) {
    reduces = reduces || (is_reduction(graph.node(n)) && !(inline_reductions && unrolled(n)));
  }
  // The runtime's copy of a fused Scatter's self into its output (a launch before the group's);
  // a Scatter group whose one store is the scatter: the index_put kernel. A Scatter among other
  // stores is one store of the pointwise or reduction kernel.
  const bool runtime_part = group.note == kIndexPutSelfNote || group.note == kIndexPutScatterNote;
  for (const NodeId n : ctx.writes) {
    if (!is_index_put(graph.node(n))) continue;
    // With a reduction computed inline the Scatter is one store of the pointwise kernel.
    if (runtime_part || (!reduces && !inline_reductions && ctx.writes.size() == 1)) {
      return index_put_kernel(ctx, n);
    }
  }
  // The planner's Scatter for aten.scatter (lowering.scatter: scatter_(clone(x), ...)): a group
  // storing the scatter alone, its source inline, and a group storing nothing that holds it,
  // the copy of self made while the scatter is lowered.
  if (!reduces && ctx.writes.size() == 1 && is_scatter(graph.node(*ctx.writes.begin()))) {
    return scatter_kernel(ctx, *ctx.writes.begin(), ScatterPart::scatter);
  }
  if (ctx.writes.empty() && !reduces) {
    for (const NodeId n : ctx.members) {
      if (!is_scatter(graph.node(n))) continue;
      ctx.writes = {n};
      return scatter_kernel(ctx, n, ScatterPart::self_copy);
    }
  }
  // A group that holds an index_put and stores nothing: the copy of self that the functional
  // index_put scatters into (lowering.index_put: index_put_(clone(x), ...)), made while the
  // index_put is lowered and so carrying its origins.
  if (ctx.writes.empty() && !reduces) {
    for (const NodeId n : ctx.members) {
      if (!is_index_put(graph.node(n))) continue;
      ctx.writes = {n};
      return index_put_kernel(ctx, n, true);
    }
  }
  if (reduces) return reduction_kernel(ctx);
  if (ctx.writes.empty()) return copy_kernel(ctx);
  return pointwise_kernel(ctx);
}

std::optional<NodeId> lone_generated_extern(const graph::Graph& graph,
                                            const fusion::KernelGroup& group) {
  if (group.kind != fusion::GroupKind::extern_kernel && group.kind != fusion::GroupKind::eager_op)
    return std::nullopt;
  if (group.nodes.size() != 1 || group.nodes.front() >= graph.size()) return std::nullopt;
  const graph::Node& n = graph.node(group.nodes.front());
  if (!is_lstm_cell(n) && !is_sort_or_topk(n) && !is_histc(n) && !is_scatter(n) &&
      !is_grouped_mm(n) && !is_nonzero(n)) {
    return std::nullopt;
  }
  return group.nodes.front();
}

Error op_error(const KernelContext& ctx, const graph::Node& n, const std::string& why) {
  return make_error(ctx.where + ": " + std::string(ops::op_key(n.target)) + " " + why);
}

bool has_generated_kernel(const graph::Graph& graph, const fusion::KernelGroup& group) {
  if (lone_generated_extern(graph, group)) return true;
  if (group.kind == fusion::GroupKind::extern_kernel ||
      group.kind == fusion::GroupKind::template_gemm || group.kind == fusion::GroupKind::combo) {
    return false;
  }
  if (group.kind != fusion::GroupKind::eager_op || group.nodes.size() != 1) return true;
  const NodeId n = group.nodes.front();
  // index_put is an extern op to the planner (ATen's kernel in Inductor's plan) but generated here.
  if (n < graph.size() && is_index_put(graph.node(n))) return true;
  return n < graph.size() &&
         ops::classify(graph.node(n).target).lowering != ops::Lowering::extern_kernel;
}

namespace {

// The distinct elements of NODE's buffer, in bytes: a stride-0 dim is one element, not its size.
double distinct_bytes(const graph::Node& node, const ops::SymbolHints& hints) {
  if (!node.meta || node.meta->is_sym_scalar()) return 0.0;
  const graph::TensorMeta& m = *node.meta;
  double elements = 1;
  for (std::size_t d = 0; d < m.sizes.size(); ++d) {
    if (d < m.strides.size() && ops::eval_dim(m.strides[d], hints) == 0) continue;
    elements *= static_cast<double>(ops::eval_dim(m.sizes[d], hints));
  }
  return elements * static_cast<double>(ops::dtype_bytes(m.dtype));
}

}  // namespace

double kernel_bytes(const GeneratedKernel& kernel, const graph::Graph& graph,
                    const ops::SymbolHints& hints) {
  double bytes = 0;
  for (const KernelParam& p : kernel.params) {
    bytes += p.scratch_elements > 0 ? static_cast<double>(p.scratch_elements) *
                                          static_cast<double>(ops::dtype_bytes(p.dtype))
                                    : distinct_bytes(graph.node(p.node), hints);
  }
  return bytes;
}

std::vector<LaunchConfig> candidates(const graph::Graph& graph, const fusion::KernelGroup& group,
                                     const ops::SymbolHints& hints) {
  std::vector<LaunchConfig> out;
  const auto add = [&](LaunchConfig c) {
    for (const LaunchConfig& seen : out) {
      if (seen == c) return;
    }
    out.push_back(c);
  };
  CodegenOptions defaults;
  defaults.hints = hints;
  auto kernel = generate(graph, group, defaults);
  if (!kernel) return out;
  add(kernel->config);
  // A kernel of its own for an ATen op keeps its one launch shape.
  if (kernel->summary.starts_with("scan") || lone_generated_extern(graph, group)) return out;
  if (kernel->summary.starts_with("channels-last copy")) {
    // Only the few-channel form takes its block from the candidate; the tiled forms are fixed.
    if (kernel->summary.find(kCopyByPositions) == std::string::npos) return out;
    for (const int block : {64, 128, 256, 512}) add({block, 1, 1});
    return out;
  }
  if (kernel->summary.starts_with("reduction")) {
    // Threads per row (block / rows_per_block) from a quarter warp to the whole block.
    for (const int block : {128, 256, 512}) {
      for (const int team : {8, 32, 128, 512}) {
        if (team <= block) add({block, 1, block / team});
      }
    }
  } else {
    // A max pooling staged in shared memory: output rows a block (one is the per-output form).
    if (kernel->summary.find(kStagedRows) != std::string::npos) {
      for (const int block : {128, 256, 512}) {
        for (const int rows : {2, 4, 8}) add({block, 1, rows});
      }
    }
    // Scalar items per thread, and the vector width of the default (4 floats, 8 halves).
    for (const int block : {128, 256, 512, 1024}) {
      for (const int items : {1, 2, 4, kernel->config.items_per_thread}) add({block, items, 1});
    }
  }
  return out;
}

}  // namespace fxscope::codegen
