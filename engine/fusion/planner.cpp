// The planner per mode: eager lists ops, the Inductor modes lower, fuse, and describe groups.

#include "fxscope/fusion/planner.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "fxscope/fusion/combo_kernels.h"
#include "fxscope/fusion/cpp_kernel_group.h"
#include "fxscope/fusion/cuda_graph_check.h"
#include "fxscope/fusion/fusion_scheduler.h"
#include "fxscope/fusion/kernel_naming.h"
#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/alu_cost.h"
#include "subgraph_plans.h"

namespace fxscope::fusion {
namespace {

using graph::NodeId;

std::string extern_name(const graph::Node& node) {
  const ops::OpInfo info = ops::classify(node.target);
  if (info.op_class == ops::OpClass::gemm || info.op_class == ops::OpClass::conv) {
    return "extern_kernels." + std::string(ops::op_base_name(node.target));
  }
  return std::string(ops::op_key(node.target));
}

// The issue slots of what GROUP computes: nothing for a layout copy, only the combine (each
// reduction's per-element slots over the partial results) for a split reduction's middle and
// second passes, else every node's.
double group_alu_slots(const graph::Graph& graph, const PlanOptions& options,
                       const KernelGroup& group) {
  if (is_layout_copy(group)) return 0.0;
  if (group.note != kSplitSecondPassNote && group.note != kSplitMiddlePassNote) {
    return ops::alu_slots(graph, group.nodes, options.hints);
  }
  double slots = 0;
  for (const NodeId id : group.nodes) {
    const ops::OpInfo* info = ops::find_op(graph.node(id).target);
    if (info == nullptr || !ops::reduces(info->lowering)) continue;
    slots += ops::alu_slots_per_element(ops::op_base_name(graph.node(id).target)) *
             static_cast<double>(group.numel * group.rnumel);
  }
  return slots;
}

void add_costs(const graph::Graph& graph, const PlanOptions& options, KernelGroup& group) {
  if (!is_layout_copy(group)) {
    for (const NodeId id : group.nodes) {
      // A generated kernel's origins can name the library call it was made for (an input
      // copied into the layout a convolution requires), whose work it does not do. A GEMM
      // template is the generated kernel that does its GEMM.
      if (group.kind != GroupKind::extern_kernel && group.kind != GroupKind::template_gemm &&
          ops::runs_in_library(graph.node(id).target)) {
        continue;
      }
      group.flops += ops::op_cost(graph, id, options.hints).flops;
    }
  }
  group.alu_slots = group_alu_slots(graph, options, group);
  const auto tensor_bytes = [&](const graph::Node& node) {
    if (!node.meta || node.meta->is_sym_scalar()) return 0.0;
    return static_cast<double>(ops::numel(*node.meta, options.hints) *
                               ops::dtype_bytes(node.meta->dtype));
  };
  const auto bytes = [&](NodeId id) {
    const graph::Node& node = graph.node(id);
    if (node.meta) return tensor_bytes(node);
    // A tuple (a max-pool with its offsets): its tensors are the getitems that take them apart.
    // ResNet-50's stem batch norm + max-pool otherwise wrote nothing by this count.
    double sum = 0;
    for (NodeId u = id + 1; u < graph.size(); ++u) {
      const graph::Node& user = graph.node(u);
      if (ops::classify(user.target).lowering == ops::Lowering::getitem && !user.args.empty() &&
          user.args[0].kind() == graph::Argument::Kind::node && user.args[0].as_node() == id) {
        sum += tensor_bytes(user);
      }
    }
    return sum;
  };
  for (const NodeId id : group.inputs) group.bytes_read += bytes(id);
  // SIMDKernel.remove_kernel_local_buffers: of a kernel storing several buffers, one that only
  // the kernel itself reads and no graph output is, is never stored (a layer norm's realized
  // input is overwritten in place by its output: in_out_ptr).
  std::vector<std::vector<NodeId>> users;
  if (group.outputs.size() > 1 && group.kind != GroupKind::eager_op) users = graph.users();
  const auto kernel_local = [&](NodeId id) {
    if (users.empty() || users[id].empty()) return false;
    return std::all_of(users[id].begin(), users[id].end(), [&](NodeId u) {
      return graph.node(u).op != graph::OpKind::output &&
             std::find(group.nodes.begin(), group.nodes.end(), u) != group.nodes.end();
    });
  };
  for (const NodeId id : group.outputs) {
    if (!kernel_local(id)) group.bytes_written += bytes(id);
  }
  // The copy's own buffer is no graph node: it is as large as what it copies.
  if (is_layout_copy(group)) group.bytes_written = group.bytes_read;
}

// The cast of a random draw (prims.inductor_random, aten.rand) to a narrower float that the
// comparison ID reads: dropout's mask as the AOT graph decomposes it (rand_like(x) > p).
std::optional<NodeId> rounded_random_draw(const graph::Graph& graph, NodeId id) {
  const std::string_view op = ops::op_base_name(graph.node(id).target);
  if (op != "gt" && op != "lt" && op != "ge" && op != "le") return std::nullopt;
  for (const NodeId in : graph.inputs(id)) {
    const graph::Node& cast = graph.node(in);
    if (!cast.is_op() || ops::op_base_name(cast.target) != "convert_element_type") continue;
    const auto from = graph.inputs(in);
    if (from.size() != 1) continue;
    const std::string_view source = ops::op_base_name(graph.node(from.front()).target);
    if (source == "inductor_random" || source == "rand" || source == "rand_like") return in;
  }
  return std::nullopt;
}

FusionPlan plan_eager(const graph::Graph& graph, const PlanOptions& options) {
  FusionPlan plan;
  plan.mode = Mode::eager;
  for (NodeId id = 0; id < graph.size(); ++id) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op()) continue;
    const ops::OpInfo info = ops::classify(node.target);
    if (info.lowering == ops::Lowering::view || info.lowering == ops::Lowering::getitem) continue;
    // torch.cond launches nothing itself: eager reads the predicate and calls a branch, whose
    // ops are its subgraph plan's.
    if (runs_subgraphs(node.target)) continue;
    KernelGroup group;
    group.id = plan.groups.size();
    group.name = std::string(ops::op_key(node.target));
    group.kind = GroupKind::eager_op;
    group.nodes = {id};
    group.inputs = graph.inputs(id);
    group.outputs = {id};
    if (const auto draw = rounded_random_draw(graph, id)) {
      // ATen's dropout compares its uniform draw in f32 (fused_dropout_kernel); the AOT graph's
      // rand_like rounds the draw to the activation's dtype first. The comparison reads the draw
      // through the cast, unrounded, as eager's kernel and Inductor's do.
      group.nodes = {*draw, id};
      group.inputs.clear();
      for (const NodeId in : graph.inputs(*draw)) group.inputs.push_back(in);
      for (const NodeId in : graph.inputs(id)) {
        if (in != *draw) group.inputs.push_back(in);
      }
    }
    if (info.eager_kernels > 1) {
      group.note = "eager launches " + std::to_string(info.eager_kernels) + " kernels";
    }
    if (host_scalar_op(node)) group.note = std::string(kHostScalarNote);
    const ops::OpCost cost = ops::op_cost(graph, id, options.hints);
    group.flops = cost.flops;
    group.alu_slots = group_alu_slots(graph, options, group);
    group.bytes_read = cost.bytes_read;
    group.bytes_written = cost.bytes_written;
    if (node.meta) group.numel = ops::numel(*node.meta, options.hints);
    plan.groups.push_back(std::move(group));
  }
  return plan;
}

// MemoryDep.stride1_for_last_dim fails: the node's innermost loop variable steps the address by
// more than one element.
bool strided_innermost(const MemoryDep& d) {
  if (d.opaque) return false;
  return std::any_of(d.terms.begin(), d.terms.end(),
                     [](const IndexTerm& t) { return t.place == 1 && t.mult > 1; });
}

// SIMDKernelFeatures.get_reduction_hint: the hint its reductions share (neither where they
// differ); an inner one is neither when a pointwise node over the whole loop (numel x rnumel)
// loads or stores along a stride (has_non_contiguous_pw_in_reduction_kernel).
ReductionHint kernel_hint(const std::vector<const SchedulerNode*>& members,
                          const SchedulerNode& reduction) {
  ReductionHint hint = reduction.hint;
  for (const SchedulerNode* s : members) {
    if (s->reduction && s->hint != hint) return ReductionHint::neither;
  }
  if (hint != ReductionHint::inner) return hint;
  const std::int64_t loop = reduction.numel * reduction.rnumel;
  for (const SchedulerNode* s : members) {
    if (s->reduction || s->numel != loop) continue;
    if (strided_innermost(s->write_dep) ||
        std::any_of(s->read_deps.begin(), s->read_deps.end(), strided_innermost)) {
      return ReductionHint::neither;
    }
  }
  return hint;
}

// The kind of a fused group from its scheduler nodes.
GroupKind group_kind(const std::vector<const SchedulerNode*>& members, const PlanOptions& options) {
  for (const SchedulerNode* s : members) {
    if (s->template_gemm) return GroupKind::template_gemm;
    if (!s->fusable && s->note != "scan") return GroupKind::extern_kernel;
  }
  for (const SchedulerNode* s : members) {
    if (s->note == "scan") {
      return s->rnumel <= options.persistent_rnumel ? GroupKind::persistent_reduction
                                                    : GroupKind::reduction;
    }
    if (s->reduction) {
      // InductorChoices.should_use_persistent_reduction.
      const std::int64_t limit = kernel_hint(members, *s) == ReductionHint::inner
                                     ? options.persistent_rnumel
                                     : options.persistent_rnumel_not_inner;
      // statically_known_leq: a symbolic size is never known to fit.
      return s->rnumel <= limit && !s->symbolic_rnumel ? GroupKind::persistent_reduction
                                                       : GroupKind::reduction;
    }
  }
  return GroupKind::pointwise;
}

KernelGroup describe(const graph::Graph& graph, const LoweredGraph& lowered, const Launch& launch,
                     const PlanOptions& options, std::size_t& triton_index) {
  std::vector<const SchedulerNode*> nodes;
  std::vector<std::size_t> members;
  for (const auto& sub : launch.subkernels) members.insert(members.end(), sub.begin(), sub.end());
  std::sort(members.begin(), members.end());
  for (const std::size_t m : members) nodes.push_back(&lowered.nodes[m]);
  KernelGroup group;
  group.kind = launch.combo ? GroupKind::combo : group_kind(nodes, options);
  std::set<std::int64_t> written;
  std::set<std::int64_t> read;
  std::set<NodeId> origins;
  std::set<NodeId> stored_inputs;
  for (const SchedulerNode* s : nodes) {
    origins.insert(s->origins.begin(), s->origins.end());
    if (s->mutates >= 0) stored_inputs.insert(static_cast<NodeId>(s->mutates));
    written.insert(s->buffer);
    read.insert(s->reads.begin(), s->reads.end());
    if (s->reduction || group.numel == 0) {
      group.numel = s->numel;
      group.rnumel = s->rnumel;
      group.outer_reduction = s->outer_reduction;
    }
    // A layout copy fused into another kernel names no longer what the kernel does.
    const bool copy_note = s->note == kLayoutCopyNote || s->note == kMaskCopyNote;
    if (!s->note.empty() && group.note.empty() && (!copy_note || nodes.size() == 1)) {
      group.note = s->note;
    }
  }
  group.nodes.assign(origins.begin(), origins.end());
  group.stored_inputs.assign(stored_inputs.begin(), stored_inputs.end());
  if (group.nodes.empty() && group.stored_inputs.empty()) {
    // A copy of a graph input made with no ATen origin reads it as its own buffer (an input's
    // buffer id is its node id).
    for (const std::int64_t b : read) {
      if (b >= 0 && static_cast<std::size_t>(b) < graph.size() &&
          graph.node(static_cast<NodeId>(b)).op == graph::OpKind::placeholder) {
        group.read_inputs.push_back(static_cast<NodeId>(b));
      }
    }
  }
  if (launch.combo) {
    // Its grid covers every sub-kernel's elements, one after another.
    group.numel = 0;
    for (const auto& sub : launch.subkernels) group.numel += lowered.nodes[sub.front()].numel;
    group.note =
        "combo kernel of " + std::to_string(launch.subkernels.size()) + " foreach sub-kernels";
    group.named_nodes = launch.named;
  }
  const auto graph_size = static_cast<std::int64_t>(graph.size());
  for (const std::int64_t b : read) {
    if (!written.count(b) && b < graph_size) group.inputs.push_back(static_cast<NodeId>(b));
  }
  for (const std::int64_t b : written) {
    if (b < graph_size) group.outputs.push_back(static_cast<NodeId>(b));
  }
  if (group.kind == GroupKind::extern_kernel) {
    // The library call computes its node, whatever buffer the lowering gave it (a convolution
    // whose bias is added after it writes a buffer of its own).
    group.outputs = {nodes.front()->node};
    group.name = extern_name(graph.node(nodes.front()->node));
  } else if (launch.combo) {
    // SIMDScheduling.codegen_combo_kernel names it after the foreach node's origins, which are
    // empty: triton_for_fused_N.
    group.name = kernel_name(graph, {}, group.kind, triton_index++);
  } else {
    group.name = kernel_name(graph, group.nodes, group.kind, triton_index++);
  }
  add_costs(graph, options, group);
  return group;
}

// The sizes of a node's loops as Inductor's scheduler keeps them under loop_ordering_after_fusion:
// its value's dims without those of size 1 (index_vars_squeeze), unmerged, in the order
// pick_loop_order ran them where that is another (MemoryDep::loops).
std::vector<std::int64_t> loop_sizes_of(const graph::Graph& graph, const SchedulerNode& s,
                                        const MemoryDep& dep) {
  if (!dep.loops.empty()) return dep.loops;
  std::vector<std::int64_t> sizes;
  const graph::Node& node = graph.node(s.node);
  if (!node.meta) return sizes;
  for (const graph::Dim& d : node.meta->sizes) {
    if (d.is_symbolic()) return {};
    if (d.value != 1) sizes.push_back(d.value);
  }
  return sizes;
}

// Scheduler.can_fuse for a template and its epilogue: InductorChoices.can_fuse refuses a pair
// sharing no data, and a MemoryDep is shared only where it is equal: the same buffer, address
// and loop sizes. A template's store runs over its output's dims (TemplateBuffer.
// extract_read_writes, not normalized under loop_ordering_after_fusion), so an epilogue reading
// it through a reshape (a [B*S, N] GEMM output viewed as [B, S, N]) loops otherwise, shares
// nothing and never reaches the benchmark; templates do not take part in loop reordering.
bool shares_template_store(const graph::Graph& graph, const LoweredGraph& lowered,
                           const SchedulerNode& head, const std::vector<std::size_t>& epilogue) {
  const std::vector<std::int64_t> stored = loop_sizes_of(graph, head, head.write_dep);
  bool shared = false;
  for (const std::size_t m : epilogue) {
    const SchedulerNode& s = lowered.nodes[m];
    for (const MemoryDep& d : s.read_deps) {
      if (d.buffer != head.buffer) continue;
      if (!d.same_address(head.write_dep) || loop_sizes_of(graph, s, d) != stored) return false;
      shared = true;
    }
  }
  return shared;
}

// max-autotune: a template takes its single pointwise consumer as an epilogue when the pair
// shares its store's dep (shares_template_store) and the benchmark of the fused template beats
// the fastest choice plus the epilogue's own kernel (Scheduler.speedup_by_fusion with
// benchmark_epilogue_fusion: one Triton choice, the fastest, is tried). The benchmark is not
// replayed: a template computing in bf16 or fp16 is taken as the autotune's pick, so the fused
// kernel saves the epilogue's launch; one computing in fp32 (no tensor cores, cuBLAS ahead by
// more than an epilogue's time, as the logs' autotune records show) keeps its epilogue apart.
// Scheduler.can_fuse refuses, before any benchmark, an epilogue that aliases or mutates a
// buffer ("template epilogue not satisfied": has_aliasing_or_mutation), such as a cat's piece
// stored into its slice.
void fuse_epilogues(const graph::Graph& graph, const LoweredGraph& lowered,
                    std::vector<std::vector<std::size_t>>& groups) {
  for (std::size_t t = 0; t < groups.size(); ++t) {
    const SchedulerNode& head = lowered.nodes[groups[t].front()];
    if (!head.template_gemm) continue;
    const graph::Node& gemm = graph.node(head.node);
    const bool half_precision =
        gemm.meta && (gemm.meta->dtype == "bf16" || gemm.meta->dtype == "f16");
    if (!half_precision) continue;
    std::vector<std::size_t> consumers;
    for (std::size_t c = 0; c < groups.size(); ++c) {
      for (const std::size_t m : groups[c]) {
        const auto& reads = lowered.nodes[m].reads;
        if (c != t && std::binary_search(reads.begin(), reads.end(), head.buffer)) {
          consumers.push_back(c);
          break;
        }
      }
    }
    if (consumers.size() != 1) continue;
    std::vector<std::size_t>& epilogue = groups[consumers.front()];
    const bool pointwise = std::all_of(epilogue.begin(), epilogue.end(), [&](std::size_t m) {
      const SchedulerNode& s = lowered.nodes[m];
      return s.fusable && !s.reduction && s.numel == head.numel && !s.aliased && s.mutates < 0;
    });
    if (!pointwise || consumers.front() < t) continue;
    if (!shares_template_store(graph, lowered, head, epilogue)) continue;
    groups[t].insert(groups[t].end(), epilogue.begin(), epilogue.end());
    epilogue.clear();
  }
  groups.erase(
      std::remove_if(groups.begin(), groups.end(), [](const auto& g) { return g.empty(); }),
      groups.end());
}

}  // namespace

std::string_view to_string(Mode mode) {
  switch (mode) {
    case Mode::eager:
      return "eager";
    case Mode::default_mode:
      return "default";
    case Mode::reduce_overhead:
      return "reduce-overhead";
    case Mode::max_autotune:
      return "max-autotune";
  }
  return "default";
}

std::optional<Mode> parse_mode(std::string_view text) {
  std::string name(text);
  std::replace(name.begin(), name.end(), '_', '-');
  if (name == "default-mode") name = "default";
  for (const Mode mode : kAllModes) {
    if (to_string(mode) == name) return mode;
  }
  return std::nullopt;
}

std::string_view to_string(GroupKind kind) {
  switch (kind) {
    case GroupKind::pointwise:
      return "pointwise";
    case GroupKind::reduction:
      return "reduction";
    case GroupKind::persistent_reduction:
      return "persistent_reduction";
    case GroupKind::template_gemm:
      return "template";
    case GroupKind::combo:
      return "combo";
    case GroupKind::extern_kernel:
      return "extern";
    case GroupKind::eager_op:
      return "eager";
  }
  return "pointwise";
}

FusionPlan plan(const graph::Graph& graph, Mode mode, const PlanOptions& options) {
  FusionPlan result;
  if (graph.op_count() == 0) {
    result.mode = mode;
    result.notes.push_back("the graph has no ATen ops: nothing to plan");
    return result;
  }
  if (mode == Mode::eager) {
    result = plan_eager(graph, options);
    // Eager runs torch.cond's chosen branch op by op, as its own subgraph plan.
    detail::plan_subgraphs(graph, mode, options, result);
  } else {
    const LoweredGraph lowered = lower_graph(graph, options, mode == Mode::max_autotune);
    std::vector<std::vector<std::size_t>> groups = fuse_nodes(lowered, options);
    if (mode == Mode::max_autotune) fuse_epilogues(graph, lowered, groups);
    group_cpp_kernels(graph, lowered, groups);
    // Epilogues and C++ kernels merge groups again: what a merged group reads comes first.
    order_for_dependencies(lowered.nodes, groups);
    std::size_t triton_index = 0;
    for (const Launch& launch : form_launches(lowered, groups, options)) {
      if (!launch.combo && !lowered.nodes[launch.subkernels.front().front()].launches) continue;
      result.groups.push_back(describe(graph, lowered, launch, options, triton_index));
      result.groups.back().id = result.groups.size() - 1;
    }
    detail::plan_subgraphs(graph, mode, options, result);
    result.unknown_ops = lowered.unknown_ops;
    result.mode = mode;
    if (mode != Mode::default_mode)
      result.cuda_graphs = check_cuda_graphs(graph, options.static_inputs);
  }
  std::map<std::string, std::size_t> unknown;
  if (mode == Mode::eager) {
    for (const graph::Node& node : graph.nodes()) {
      if (node.is_op() && !modelled_op(node)) {
        ++unknown[node.target];
      }
    }
    for (auto& [target, count] : unknown) result.unknown_ops.push_back({target, count});
  }
  for (const ops::UnknownOp& op : result.unknown_ops) {
    result.notes.push_back("unknown op " + op.target + " (" + std::to_string(op.count) +
                           "x) planned as an opaque kernel of its own");
  }
  return result;
}

}  // namespace fxscope::fusion
