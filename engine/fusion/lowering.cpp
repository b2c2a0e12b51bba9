// Replays Inductor's lowering (torch/_inductor/graph.py run_node): each node gathers the origins
// of the unrealized values it reads; a pointwise value is realized (becomes a buffer) when it
// feeds an extern kernel, is a graph output, or is reused while reading too much.

#include "fxscope/fusion/lowering.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <string_view>

#include "fill_order.h"
#include "fxscope/fusion/layout_opt.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/adaptive_pool.h"
#include "lowerer.h"

namespace fxscope::fusion {
namespace detail {
namespace {

void merge_into(std::vector<NodeId>& into, const std::vector<NodeId>& from) {
  std::vector<NodeId> merged;
  merged.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
  into.swap(merged);
}

}  // namespace

using ops::Lowering;

Lowerer::Lowerer(const graph::Graph& g, const PlanOptions& options, bool gemm_templates)
    : g_(g),
      options_(options),
      templates_(gemm_templates),
      n_(static_cast<NodeId>(g.size())),
      model_(g, options.hints) {
  users_ = g.users();
  info_.reserve(n_);
  for (const graph::Node& node : g.nodes()) info_.push_back(ops::classify(node.target));
  realized_.assign(n_, false);
  loadless_.assign(n_, false);
  inlinable_.assign(n_, false);
  epilogue_of_.assign(n_, -1);
  sort_indices_.assign(n_, -1);
  layout_fixed_.assign(n_, false);
  template_output_.assign(n_, false);
  fill_strides_.resize(n_);
  lazy_view_.assign(n_, false);
  flat_view_.assign(n_, false);
  channels_last_.assign(n_, false);
  layout_opt_ = decide_layout_opt(g, options);
  prefer_channels_last_ =
      layout_opt_ ? nodes_prefer_channels_last(g) : std::vector<bool>(n_, false);
  alias_.resize(n_);
  origins_.resize(n_);
  opcount_.assign(n_, 0);
  window_reads_.assign(n_, 0);
  stamp_.assign(n_, 0);
  for (NodeId i = 0; i < n_; ++i) alias_[i] = i;
  foreach_op_.assign(n_, n_);
  foreach_index_.assign(n_, 0);
  graph_output_.assign(n_, false);
  for (NodeId i = 0; i < n_; ++i) {
    if (g.node(i).name.starts_with("tangents_")) backward_ = true;
    if (g.node(i).op != graph::OpKind::output) continue;
    for (const NodeId out : g.inputs(i)) graph_output_[out] = true;
  }
}

LoweredGraph Lowerer::run() {
  std::vector<NodeId> outputs;
  for (NodeId i = 0; i < n_; ++i) {
    const graph::Node& node = g_.node(i);
    if (node.op == graph::OpKind::output) {
      outputs = g_.inputs(i);
      continue;
    }
    if (inlined_constant(node)) {
      // GraphLowering.get_attr: a 1-d tensor constant of at most 8 elements
      // (can_inline_constant) is lowered by lowering.tensor into a Pointwise of its values,
      // inlined into its readers like any other, its get_attr node among their origins.
      inlinable_[i] = true;
      origins_[i] = {i};
      opcount_[i] = 1;
      continue;
    }
    if (!node.is_op()) {
      realized_[i] = true;  // placeholders and constants are buffers already
      layout_fixed_[i] = true;
      channels_last_[i] = recorded_channels_last(g_.node(i));
      continue;
    }
    if (is_sym(i)) {
      // SymInt arithmetic (a size times a size) runs in the wrapper: no kernel, no buffer.
      realized_[i] = true;
      layout_fixed_[i] = true;
      continue;
    }
    if (!modelled_op(node)) ++unknown_[node.target];
    lower(i);
    realize_for_as_strided(i);
    // GraphLowering.run_node fixes a graph output's strides as it is lowered, which puts it in
    // memory then: later readers load it rather than recompute it.
    // lowering.copy_ -> mutate_to: a graph input mutated in place is stored to right away
    // (MutationLayout), by the kernel that computes its new value.
    const bool copy_into = ops::op_base_name(node.target) == "copy_";
    if (graph_output_[i] && flat_view_[i]) {
      copy_output_view(i);
    } else if (graph_output_[i] || copy_into) {
      const std::optional<std::int64_t> into = copy_into ? mutated_buffer(i) : std::nullopt;
      if (into) realize_readers_of(*into, i);
      const std::size_t pushed = sched_.size();
      realize(i);
      if (info_[i].lowering == Lowering::getitem) add_store_origin(i);
      layout_fixed_[storage(i)] = true;
      const std::optional<NodeId> dst = arg_node(i, 0);
      const bool pushed_copy = sched_.size() > pushed && sched_.back().node == i;
      if (copy_into && pushed_copy && dst && !g_.node(*dst).is_op()) {
        sched_.back().mutates = *dst;
      }
      if (into && pushed_copy) mutate_buffer(i, *into);
    }
  }
  for (const NodeId out : outputs) realize(out);
  count_loop_vars();
  LoweredGraph lowered{std::move(sched_), {}, std::move(foreach_list_sizes_)};
  for (auto& [target, count] : unknown_) lowered.unknown_ops.push_back({target, count});
  return lowered;
}

void Lowerer::lower(NodeId i) {
  if (foreach_op_[i] != n_) {
    // The getitem of a foreach element: the element was made with its op. GraphLowering.run_node
    // treats the value it returns like any other (mark_reuse when it has several users).
    channels_last_[i] = recorded_channels_last(g_.node(i));
    return hint_realize(i);
  }
  if (lower_foreach(i)) return;
  const std::string_view target = g_.node(i).target;
  if (lowers_to_nothing(target)) {
    // The runtime assert Inductor writes in the wrapper (an AssertScalar scheduler node where
    // the unbacked size it checks is bound): a place in the order, no launch.
    realized_[i] = true;
    push(i, {i}, {}, i, 1, 1, false, false, "");
    sched_.back().launches = false;
    return;
  }
  if (allocates_only(target)) {
    // lowering.empty_strided realizes a fill of zero ranges at once: a NopKernelSchedulerNode
    // (no launch, no fusion), never among another kernel's gathered origins.
    inlinable_[i] = true;
    origins_[i] = {i};
    realize(i);
    sched_.back().launches = false;
    sched_.back().fusable = false;
    return;
  }
  const std::vector<NodeId> args = g_.inputs(i);
  // as_strided reinterprets its input's storage, so it realizes the input first (it is in
  // lowering's needs_realized_inputs).
  if (ops::op_base_name(g_.node(i).target).starts_with("as_strided")) {
    for (const NodeId a : args) realize(a);
  }
  std::vector<NodeId> gathered{i};
  for (const NodeId a : args) {
    if (!realized_[a]) merge_into(gathered, origins_[a]);
  }
  if (lower_higher_order(i, args, gathered)) return;
  // run_node gathers the origins of unrealized arguments before the lowering, whose
  // mark_reuse may then store the expanded input: the expand keeps the input's origins.
  if (!args.empty()) expand_reuse(i, args.front());
  // run_node gathers the origins of unrealized arguments before calling the lowering, which
  // then realizes a GEMM's pad input: the pad keeps the input's origins.
  if (pads_for_gemm(i) && !args.empty()) realize(args.front());
  channels_last_[i] = channels_last(i, args);
  if (ops::op_base_name(g_.node(i).target) == "cat" && lower_cat(i, gathered)) return;
  if (lower_scatter(i, gathered) || lower_dim_scatter(i, gathered) || lower_sort(i, gathered)) {
    return;
  }
  if (ops::adaptive_pool_is_clone(g_, i, options_.hints) && !args.empty()) {
    // lowering._adaptive_avg_pool2d: x.realize_hint(), then clone(x), a Pointwise inlined into
    // its readers like any other.
    const NodeId in = storage(args.front());
    if (!realized_[in] && inlinable_[in] && inner_fn_count(in).nontrivial_reads > 1) realize(in);
    origins_[i] = std::move(gathered);
    inlinable_[i] = true;
    opcount_[i] = 1 + (realized_[args.front()] ? 0 : opcount_[args.front()]);
    return hint_realize(i);
  }
  switch (info_[i].lowering) {
    case Lowering::getitem:
      return lower_getitem(i, args);
    case Lowering::view:
    case Lowering::pointwise:
      if (pointless_view(g_, i)) std::erase(gathered, i);
      origins_[i] = std::move(gathered);
      if (info_[i].lowering == Lowering::view) mark_flat_view(i, args);
      if (info_[i].lowering == Lowering::pointwise) {
        inlinable_[i] = true;
        opcount_[i] = 1;
        for (const NodeId a : args) opcount_[i] += realized_[a] ? 0 : opcount_[a];
      } else if (!args.empty() && !realized_[args.front()]) {
        // A view's loader calls its input's (View.make_loader), so what reads the view
        // inlines the input's inner function: its ops count towards the reader's
        // inner_fn_opcount, and towards the threshold that stores a reused value.
        opcount_[i] = opcount_[args.front()];
      }
      return hint_realize(i);
    case Lowering::reduction:
    case Lowering::welford:
    case Lowering::scan:
      return lower_reduction(i, args, std::move(gathered));
    case Lowering::window:
      return lower_window(i, args, std::move(gathered));
    case Lowering::extern_kernel:
      return lower_extern(i, args, gathered);
  }
}

void Lowerer::expand_reuse(NodeId i, NodeId in) {
  const std::string_view base = ops::op_base_name(g_.node(i).target);
  if (base != "expand" && base != "expand_as") return;
  const NodeId storage_node = storage(in);
  if (realized_[storage_node] || !inlinable_[storage_node]) return;
  const std::int64_t in_numel = model_.numel(in);
  if (in_numel <= 0 || model_.numel(i) / in_numel < 2) return;
  const InnerFnCount count = inner_fn_count(storage_node);
  if (count.loads > options_.realize_reads_threshold ||
      count.ops > options_.realize_opcount_threshold) {
    realize(storage_node);
  }
}

bool Lowerer::pads_for_gemm(NodeId i) const {
  const graph::Node& node = g_.node(i);
  if (ops::op_base_name(node.target) != "constant_pad_nd" || users_[i].size() != 1 ||
      node.args.size() < 2 || node.args[1].items().size() != 4) {
    return false;
  }
  const std::optional<NodeId> in = arg_node(i, 0);
  if (!in || model_.sizes(*in).size() != 2) return false;
  const std::string_view user = ops::op_base_name(g_.node(users_[i].front()).target);
  return user == "mm" || user == "addmm";
}

bool Lowerer::lower_cat(NodeId i, const std::vector<NodeId>& gathered) {
  const graph::Node& node = g_.node(i);
  std::vector<NodeId> pieces;
  if (!node.args.empty()) {
    for (const graph::Argument& a : node.args[0].items()) {
      if (a.is_node()) pieces.push_back(a.as_node());
    }
  }
  if (pieces.size() < 2) return false;  // a clone
  bool any_lowered = false;
  bool all_lowered = true;
  bool reduction = false;
  for (const NodeId p : pieces) {
    const NodeId base = storage(p);
    // should_lower_cat_input: an input not yet in memory, or one that cannot be realized into
    // the cat without a copy. A template GEMM's output, or a view of one, can
    // (as_storage_and_layout reaches its buffer; can_realize_into_without_copy assumes a
    // MultiTemplateBuffer's fixed layout matches the cat's before it is decided).
    NodeId source = base;
    while (!realized_[source] && (info_[source].lowering == Lowering::view ||
                                  info_[source].lowering == Lowering::getitem)) {
      const std::vector<NodeId> args = g_.inputs(source);
      if (args.empty()) break;
      source = args.front();
    }
    const bool into_template = realized_[source] && template_output_[source];
    const bool lowered = !into_template && (!realized_[base] || layout_fixed_[base]);
    any_lowered |= lowered;
    all_lowered &= lowered;
    reduction |= reads_reduction(p);
  }
  const bool pointwise_users =
      std::all_of(users_[i].begin(), users_[i].end(), [&](NodeId u) { return pointwise_use(u); });
  if (pieces.size() <= options_.max_pointwise_cat_inputs &&
      ((any_lowered && pointwise_users) || (all_lowered && !reduction))) {
    return false;
  }
  // ConcatKernel.create: each input is realized into its slice of the output. One computed in
  // this graph whose layout is still free is written there by its own kernel; any other (a
  // view, a graph input, a library call's result, a buffer already laid out) is copied by a
  // kernel of its own, made while the cat is lowered.
  std::vector<std::int64_t> reads;
  for (const NodeId p : pieces) {
    const NodeId base = storage(p);
    if (base == p && !realized_[p]) realize(p);
    if (base == p && realized_[p] && (!layout_fixed_[p] || template_output_[p])) {
      layout_fixed_[p] = true;
      reads.push_back(alias_[p]);
      for (SchedulerNode& s : sched_) {
        if (s.buffer == alias_[p] && !s.template_gemm) s.aliased = true;
      }
      continue;
    }
    const std::int64_t copy = next_buffer_++;
    push(p, gathered, read_set(p), copy, numel_of(p), 1, false, true, "");
    sched_.back().aliased = true;
    if (realized_[p]) {
      // A copy of a buffer reads it where it lies: copies of one buffer into several cats
      // share the load and fuse.
      sched_.back().read_deps = {make_dep(alias_[p], iteration_coords(model_.sizes(p)),
                                          layout_strides(p), model_.numel(p),
                                          model_.element_bytes(p))};
    } else {
      set_value_deps(p);
    }
    order_pointwise_loops(p);
    reads.push_back(copy);
  }
  std::sort(reads.begin(), reads.end());
  realized_[i] = true;
  layout_fixed_[i] = true;
  push(i, {i}, std::move(reads), i, numel_of(i), 1, false, false, "");
  sched_.back().launches = false;  // the ConcatKernel itself only allocates
  return true;
}

bool Lowerer::pointwise_use(NodeId u) const {
  const std::string_view base = ops::op_base_name(g_.node(u).target);
  if (base == "cat" || base == "constant_pad_nd") return true;
  if (info_[u].lowering == Lowering::view) {
    return std::all_of(users_[u].begin(), users_[u].end(),
                       [&](NodeId v) { return pointwise_use(v); });
  }
  return info_[u].lowering == Lowering::pointwise &&
         (info_[u].op_class == ops::OpClass::pointwise ||
          info_[u].op_class == ops::OpClass::broadcast);
}

void Lowerer::lower_getitem(NodeId i, const std::vector<NodeId>& args) {
  if (args.empty()) return;
  const NodeId parent = args.front();
  const graph::Node& node = g_.node(i);
  const bool variance = info_[parent].lowering == Lowering::welford && node.args.size() > 1 &&
                        node.args[1].kind() == graph::Argument::Kind::integer &&
                        node.args[1].as_int() == 0;
  if (realized_[parent] && variance) {
    // var_mean_welford_ makes it while var_mean is lowered: it has that node's origins.
    origins_[i] = origins_[parent];
    return;
  }
  if (trivial_sort(g_, parent)) {
    // A one-element sort's values (its input) or indices (0): Pointwise with the sort's
    // origins; value_inputs and IndexModel::getitem_loads read through them accordingly.
    origins_[i] = origins_[parent];
    inlinable_[i] = true;
    opcount_[i] = opcount_[parent];
    return hint_realize(i);
  }
  if (sort_indices_[parent] >= 0 && node.args.size() > 1 &&
      node.args[1].kind() == graph::Argument::Kind::integer) {
    if (node.args[1].as_int() == 0) {
      realized_[i] = true;
      alias_[i] = alias_[parent];
      return;
    }
    // to_dtype(indices, int64), made while the sort is lowered: a Pointwise of the int16
    // buffer with the sort's origins, inlined into its readers.
    epilogue_of_[i] = sort_indices_[parent];
    origins_[i] = origins_[parent];
    inlinable_[i] = true;
    opcount_[i] = 1;
    return hint_realize(i);
  }
  if (realized_[parent] && info_[parent].lowering == Lowering::extern_kernel) {
    // ir.MultiOutput: the output gets a buffer (and a scheduler node) of its own.
    realized_[i] = true;
    push(i, {i}, {static_cast<std::int64_t>(alias_[parent])}, i, numel_of(i), 1, false, false, "");
    sched_.back().launches = false;
    layout_fixed_[i] = true;
    return;
  }
  if (realized_[parent]) {
    realized_[i] = true;
    alias_[i] = alias_[parent];
    return;
  }
  origins_[i] = origins_[parent];
  // An element of a pooling tuple is a TensorBox like any other to run_node, checked for its
  // reuse and reads as the getitem is lowered (the tuple itself was not).
  if (info_[parent].lowering != Lowering::window) return;
  const bool stored_before = realized_[storage(i)];
  hint_realize(i);
  if (!stored_before && realized_[storage(i)]) add_store_origin(i);
  if (realized_[parent] && !realized_[i]) {
    // Stored as it was: the getitem is that buffer, as for a tuple already in memory.
    realized_[i] = true;
    alias_[i] = alias_[parent];
  }
}

void Lowerer::add_store_origin(NodeId i) {
  // A pooling tuple's element stored while its getitem is lowered (GraphLowering.run_node
  // realizes a reused or returned value there: a max-pool's values and offsets that a training
  // forward saves) is stored under that run_node's IRNode.current_origins, the getitem among
  // them. The tuple is one buffer here: its store takes each such getitem.
  const NodeId parent = g_.inputs(i).empty() ? i : g_.inputs(i).front();
  if (info_[parent].lowering != Lowering::window || !realized_[storage(i)]) return;
  for (auto s = sched_.rbegin(); s != sched_.rend(); ++s) {
    // The tuple's store: the pooling node's own (the tuple's elements alias it).
    if (s->node != storage(i) && s->node != parent) continue;
    if (std::find(s->origins.begin(), s->origins.end(), i) == s->origins.end()) {
      s->origins.push_back(i);
      std::sort(s->origins.begin(), s->origins.end());
    }
    return;
  }
}

void Lowerer::lower_extern(NodeId i, const std::vector<NodeId>& args,
                           const std::vector<NodeId>& gathered) {
  const std::string_view base = ops::op_base_name(g_.node(i).target);
  // Attention calls and a convolution's backward require their inputs in a stride order of
  // their own (sdpa_constraint, constrain_to_fx_strides): an input not yet in memory is
  // computed by a copy made while the call is lowered (ExternKernel.require_stride_order), so
  // its kernel carries the origins of everything the call gathered, the call included. A
  // convolution realizes its inputs first (x.realize()), so they keep their own origins.
  // Without channels-last layout a convolution is constrained too (constrain_conv_to_fx_strides),
  // its bias included.
  // A custom operator's implicit fallback requires its inputs' exact strides
  // (constrain_to_fake_tensors, require_exact_strides): an input not in memory is copied so too,
  // as it is for an ATen fallback asking for dense inputs (require_contiguous in a backward).
  const bool constrained =
      info_[i].op_class == ops::OpClass::attention ||
      (info_[i].op_class == ops::OpClass::conv && (base != "convolution" || !layout_opt_)) ||
      custom_op_fallback(g_.node(i).target) ||
      fallback_requires_dense(g_.node(i).target, backward_);
  if (info_[i].op_class == ops::OpClass::attention && args.size() > 3 &&
      realized_[storage(args[3])]) {
    // A mask already in memory is copied to an aligned layout all the same.
    push(i, gathered, read_set(args[3]), next_buffer_++, numel_of(args[3]), 1, false, true,
         std::string(kMaskCopyNote));
  }
  // A convolution's bias is peeled off on GPUs ("cudnn is slower with it"): the library call
  // runs without it into a buffer of its own, and the node's value is that buffer plus the
  // bias, a Pointwise made while the convolution is lowered (so with its origins).
  const std::optional<NodeId> bias = base == "convolution" ? arg_node(i, 2) : std::nullopt;
  // The copies come before the inputs' own kernels in the order here (Inductor makes them
  // after): only the kernels' names depend on it, which recorded engine runs refer to.
  if (base == "convolution" && layout_opt_) {
    add_layout_copies(args, gathered);
    add_view_layout_copies(args, gathered);
  }
  if (constrained) {
    for (const NodeId a : args) realize_copy(a, gathered);
  }
  std::vector<std::int64_t> reads;
  for (const NodeId a : args) {
    if (bias && a == *bias && std::count(args.begin(), args.end(), a) == 1) continue;
    realize(a);
    if (flat_view_[a] && !realized_[a]) {
      // ExternKernel.realize_input: a view whose index convert_to_reinterpret_view cannot turn
      // into strides is copied (copy_input) with the call's origins; its index matches no store.
      push(a, gathered, read_set(a), a, numel_of(a), 1, false, true, "");
      realized_[a] = true;
      alias_[a] = a;
    }
    layout_fixed_[storage(a)] = true;
    const bool operand = a == arg_node(i, 0) || a == arg_node(i, 1);
    // With layout_opt only a 2-d convolution is required channels-last; any other keeps
    // conv_layout's stride order.
    if (base == "convolution" && (!layout_opt_ || model_.sizes(i).size() != 4) && operand) {
      if (const auto copy = stride_order_copy(i, a, gathered)) {
        reads.push_back(*copy);
        continue;
      }
    }
    add_reads(a, reads);
  }
  // max-autotune: tuned_mm, tuned_bmm and tuned_addmm (kernel/mm.py, kernel/bmm.py) each offer
  // Triton templates beside the library call. The template's origins are everything the GEMM
  // gathered, its inputs' realized producers included; where the benchmark picks the library
  // call instead, that launch is not compared.
  const bool is_template = templates_ && (base == "addmm" || base == "mm" || base == "bmm");
  const std::int64_t buffer = bias ? next_buffer_++ : static_cast<std::int64_t>(i);
  push(i, is_template ? gathered : std::vector<NodeId>{i}, std::move(reads), buffer,
       output_numel(i), 1, false, false, "");
  sched_.back().template_gemm = is_template;
  if (!bias) {
    realized_[i] = true;
    // tuned_mm and tuned_addmm: not autotuning, the library call's output layout is flexible
    // ("to get fusion optimizations to kick in, e.g. ConcatFusion"), so a cat can be realized
    // into it without a copy until a reader fixes it.
    layout_fixed_[i] = is_template || (base != "mm" && base != "addmm");
    template_output_[i] = is_template;
    return;
  }
  epilogue_of_[i] = buffer;
  origins_[i] = gathered;
  inlinable_[i] = true;
  opcount_[i] = 1 + (realized_[*bias] ? 0 : opcount_[*bias]);
  hint_realize(i);
}

std::optional<NodeId> Lowerer::arg_node(NodeId i, std::size_t pos) const {
  const graph::Node& node = g_.node(i);
  if (node.args.size() <= pos || node.args[pos].kind() != graph::Argument::Kind::node) {
    return std::nullopt;
  }
  return node.args[pos].as_node();
}

void Lowerer::hint_realize(NodeId i) {
  // GraphLowering.run_node: a graph output that is a view first realizes its storage ("so that
  // outputs are correctly aliased"), before its users ask for anything; the storage keeps its
  // own origins, and a view that reinterprets it needs no copy for a GEMM reading it.
  if (graph_output_[i] && info_[i].lowering == Lowering::view && storage(i) != i) {
    realize(storage(i));
  }
  const NodeId base = storage(i);
  if (realized_[base] || !inlinable_[base]) return;
  const std::size_t users = users_[i].size();
  const std::size_t reads = num_reads(base);
  // needs_realized_inputs: a library call's inputs; index_put_ has a lowering of its own (a
  // Scatter, falling back inside it), so its inputs are not among them.
  const bool extern_user = std::any_of(users_[i].begin(), users_[i].end(), [&](NodeId u) {
    const std::string_view op = ops::op_base_name(g_.node(u).target);
    // Nor are a higher-order op's: lowering.py adds only ATen ops and their fallbacks to
    // needs_realized_inputs; cond and a user's Triton kernel realize their operands themselves,
    // after their other readers have inlined them.
    return (info_[u].lowering == Lowering::extern_kernel && op != "index_put" &&
            op != "index_put_" && !ops::op_key(g_.node(u).target).starts_with("higher_order.")) ||
           window_needs_realized_inputs(g_.node(u).target);
  });
  if (users > 1 && extern_user && base != i && inner_fn_count(base).nontrivial_reads <= 1 &&
      fixed_layout_user(i)) {
    // GraphLowering.run_node: realize_hint stores only a value making several nontrivial loads
    // (one buffer at two addresses is two: a sum unrolled over 2 elements), and a user in
    // need_fixed_layout then asks for the view's own strides (require_stride_order): a view of
    // a value not in memory is copied, with the view's origins.
    return realize_copy(i, run_node_origins(i));
  }
  if (users > 1 && extern_user) return realize(base);
  // should_realize_on_reuse and has_exceeded_max_reads: run_node first requires a value that
  // prefers channels-last in that stride order (maybe_apply_channels_last_stride_order).
  if ((users > 1 && (reads > options_.realize_reads_threshold ||
                     opcount_[base] > options_.realize_opcount_threshold)) ||
      reads > options_.realize_acc_reads_threshold) {
    return stores_channels_last(i) ? realize_channels_last(i) : realize(base);
  }
  // has_exceeded_max_reads also holds for a Pointwise (a reduction unrolled into one included)
  // whose inner function makes more than realize_acc_reads_threshold distinct loads
  // (num_reads: OpCounterCSE's read_buffers, one per buffer and address) or is large
  // (has_large_inner_fn: its count over realize_opcount_threshold); realize_hint then stores it
  // when it makes more than one nontrivial load, and the channels-last requirement stores it
  // whatever it loads. A value past run_node's last check
  // (has_large_inner_fn(threshold=100)) is stored whatever it loads.
  if (base != i || (info_[i].lowering != Lowering::pointwise && !ops::reduces(info_[i].lowering))) {
    return;
  }
  const InnerFnCount count = inner_fn_count(i);
  const bool exceeded = count.ops > options_.realize_opcount_threshold ||
                        count.loads > options_.realize_acc_reads_threshold;
  if (exceeded && stores_channels_last(i)) return realize_channels_last(i);
  if ((exceeded && count.nontrivial_reads > 1) || count.ops > kInlineOpcountLimit) {
    realize(i);
  }
}

std::vector<NodeId> Lowerer::run_node_origins(NodeId i) const {
  // IRNode.current_origins while run_node lowers node I: the node itself and the origins of its
  // unrealized arguments (gather_origins flattens a tuple argument, so a getitem gathers its
  // tuple's elements). A view's origins hold it already; a getitem's are its tuple's.
  std::vector<NodeId> origins = origins_[i];
  if (info_[i].lowering == Lowering::getitem) merge_into(origins, {i});
  return origins;
}

void Lowerer::mark_flat_view(NodeId i, const std::vector<NodeId>& args) {
  if (args.empty() || pointless_view(g_, i)) return;
  const NodeId a = args.front();
  const bool view_input =
      info_[a].lowering == Lowering::view || info_[a].lowering == Lowering::getitem;
  // View.create, PermuteView.create, SliceView.create: a view of a buffer in memory is a
  // ReinterpretView; of anything else, a view that indexes through its input's loader.
  lazy_view_[i] = lazy_view_[a] || (!realized_[a] && !view_input);
  if (!lazy_view_[i]) return;
  const std::string_view base = ops::op_base_name(g_.node(i).target);
  const bool reshape = base == "view" || base == "reshape" || base == "_unsafe_view";
  flat_view_[i] = flat_view_[a] ||
                  (reshape && (reshape_needs_flat_index(model_.sizes(a), model_.sizes(i)) ||
                               reshape_merges_symbolic_dims(model_.sizes(a), ir_symbolic_dims(a),
                                                            model_.sizes(i), ir_symbolic_dims(i))));
}

std::vector<bool> Lowerer::ir_symbolic_dims(NodeId i) const {
  const NodeId sized =
      ops::adaptive_pool_is_clone(g_, i, options_.hints) ? g_.node(i).args.front().as_node() : i;
  std::vector<bool> symbolic;
  if (const graph::Node& node = g_.node(sized); node.meta) {
    for (const graph::Dim& d : node.meta->sizes) symbolic.push_back(d.is_symbolic());
  }
  return symbolic;
}

bool Lowerer::inlined_constant(const graph::Node& node) const {
  if (node.op != graph::OpKind::get_attr || !node.meta || node.meta->rank() != 1) return false;
  const graph::Dim& size = node.meta->sizes.front();
  return !size.is_symbolic() && size.value <= 8;
}

void Lowerer::copy_output_view(NodeId i) {
  realize(storage(i));
  push(i, origins_[i], read_set(i), i, numel_of(i), 1, false, true, "");
  set_value_deps(i);
  realized_[i] = true;
  alias_[i] = i;
  layout_fixed_[i] = true;
}

void Lowerer::realize_copy(NodeId a, const std::vector<NodeId>& origins) {
  const NodeId base = storage(a);
  if (realized_[base] || !inlinable_[base]) return;
  if (info_[a].lowering == Lowering::getitem && info_[base].lowering == Lowering::window) {
    // An element of a pooling tuple not yet in memory is the Pointwise its lowering made:
    // require_stride_order stores it in the call's order, no copy (the tuple is one store here,
    // the getitem among its origins).
    realize(base);
    return add_store_origin(a);
  }
  push(a, origins, read_set(a), a, numel_of(a), 1, false, true, "");
  set_value_deps(a);
  realized_[a] = true;
  alias_[a] = a;
  // ExternKernel.require_stride_order with the FX value's stride order (sdpa_constraint,
  // constrain_to_fx_strides): the copy is laid out as the graph recorded the value.
  const std::vector<std::int64_t>& sizes = model_.sizes(a);
  std::vector<std::int64_t> strides = model_.strides(a);
  if (sizes.size() < 2 || channels_last_[a] || sched_.back().numel != model_.numel(a) ||
      strides.size() != sizes.size() || strides == layout_strides(a)) {
    return;
  }
  // Only a permutation of a dense layout is a stride order to follow.
  std::vector<std::size_t> dims(sizes.size());
  std::iota(dims.begin(), dims.end(), std::size_t{0});
  std::sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) {
    return strides[x] != strides[y] ? strides[x] < strides[y] : x > y;
  });
  std::int64_t next = 1;
  for (const std::size_t d : dims) {
    if (sizes[d] > 1 && strides[d] != next) return;
    strides[d] = next;
    next *= sizes[d];
  }
  store_in_order(a, std::move(strides));
}

NodeId Lowerer::storage(NodeId i) const {
  while ((info_[i].lowering == Lowering::view || info_[i].lowering == Lowering::getitem) &&
         !realized_[i]) {
    const std::vector<NodeId> args = g_.inputs(i);
    if (args.empty() || realized_[args.front()]) break;
    i = args.front();
  }
  return i;
}

void Lowerer::realize(NodeId i, std::vector<std::int64_t> required) {
  const NodeId base = storage(i);
  if (realized_[base] || !inlinable_[base]) return;
  std::vector<std::int64_t> reads = read_set(base);
  realized_[base] = true;
  loadless_[base] = reads.empty() && !is_sym(base);
  push(base, origins_[base], std::move(reads), base, output_numel(base), 1, false, true, "");
  set_value_deps(base);
  if (!required.empty()) {
    layout_fixed_[base] = true;
    if (required != layout_strides(base)) return store_in_order(base, std::move(required));
    return order_pointwise_loops(base);
  }
  // GraphLowering.finalize -> ComputedBuffer.decide_layout: a buffer nothing fixes the layout
  // of is stored in the order its loads step through (get_fill_order), not the FX graph's.
  const std::vector<std::int64_t>& sizes = model_.sizes(base);
  SchedulerNode& s = sched_.back();
  if (sizes.size() < 2 || channels_last_[base] || graph_output_[base] ||
      model_.numel(base) != s.numel || !layout_stays_flexible(base)) {
    return order_pointwise_loops(base);
  }
  std::vector<std::int64_t> strides = fill_order_strides(sizes, s.read_deps);
  if (strides.empty() || strides == layout_strides(base)) return order_pointwise_loops(base);
  store_in_order(base, std::move(strides));
}

void Lowerer::store_in_order(NodeId v, std::vector<std::int64_t> strides) {
  SchedulerNode& s = sched_.back();
  const std::vector<std::int64_t>& sizes = model_.sizes(v);
  fill_strides_[v] = std::move(strides);
  const Coords coords = iteration_coords(sizes);
  const std::int64_t bytes = model_.element_bytes(v);
  s.write_dep = make_dep(v, coords, fill_strides_[v], s.numel, bytes);
  // ComputedBuffer.simplify_and_reorder: the node's loops are ordered by its store's strides
  // (pick_loop_order with the writes first), so it walks the buffer as laid out.
  std::vector<std::int64_t> dense(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) dense[k - 1] = dense[k] * sizes[k];
  const MemoryDep stored = make_dep(v, coords, dense, s.numel, bytes);
  if (const std::optional<LoopOrder> order = loop_order_to_match(s.write_dep, stored)) {
    for (MemoryDep& r : s.read_deps) r = reorder_loops(r, *order);
    s.write_dep = reorder_loops(s.write_dep, *order);
  }
}

bool Lowerer::is_sym(NodeId i) const {
  const graph::Node& node = g_.node(i);
  return node.meta && node.meta->is_sym_scalar();
}

std::int64_t Lowerer::numel_of(NodeId i) const {
  const graph::Node& node = g_.node(i);
  return node.meta && !node.meta->is_sym_scalar() ? ops::numel(*node.meta, options_.hints) : 1;
}

std::int64_t Lowerer::output_numel(NodeId i) const {
  if (g_.node(i).meta) return numel_of(i);
  for (const NodeId u : users_[i]) {
    if (g_.node(u).meta) return numel_of(u);
  }
  return 1;
}

void Lowerer::push(NodeId node, std::vector<NodeId> origins, std::vector<std::int64_t> reads,
                   std::int64_t buffer, std::int64_t numel, std::int64_t rnumel, bool reduction,
                   bool fusable, std::string note) {
  SchedulerNode s;
  s.node = node;
  for (const std::int64_t b : reads) s.read_deps.push_back(opaque_dep(b));
  const std::vector<std::int64_t>& sizes = model_.sizes(node);
  const std::int64_t bytes = model_.element_bytes(node);
  s.write_dep = model_.numel(node) == numel && !sizes.empty()
                    ? layout_dep(buffer, iteration_coords(sizes), node, numel)
                    : make_dep(buffer, iteration_coords({numel}), {1}, numel, bytes);
  s.indirect_reads = indirect_reads(origins);
  s.origins = std::move(origins);
  s.reads = std::move(reads);
  s.buffer = buffer;
  s.numel = numel;
  s.rnumel = rnumel;
  s.reduction = reduction;
  if (reduction) reduction_buffers_.insert(buffer);
  s.fusable = fusable;
  s.note = std::move(note);
  sched_.push_back(std::move(s));
}

}  // namespace detail

LoweredGraph lower_graph(const graph::Graph& graph, const PlanOptions& options,
                         bool gemm_templates) {
  return detail::Lowerer(graph, options, gemm_templates).run();
}

}  // namespace fxscope::fusion
