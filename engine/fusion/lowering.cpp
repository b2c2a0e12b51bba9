// Replays Inductor's lowering (torch/_inductor/graph.py run_node): each node gathers the origins
// of the unrealized values it reads; a pointwise value is realized (becomes a buffer) when it
// feeds an extern kernel, is a graph output, or is reused while reading too much.

#include "fxscope/fusion/lowering.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "fxscope/fusion/layout_opt.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/reduction_split.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion {
namespace {

using graph::NodeId;
using ops::Lowering;

void merge_into(std::vector<NodeId>& into, const std::vector<NodeId>& from) {
  std::vector<NodeId> merged;
  merged.reserve(into.size() + from.size());
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(merged));
  into.swap(merged);
}

class Lowerer {
 public:
  Lowerer(const graph::Graph& g, const PlanOptions& options, bool gemm_templates)
      : g_(g),
        options_(options),
        templates_(gemm_templates),
        n_(static_cast<NodeId>(g.size())),
        model_(g, options.hints) {
    users_ = g.users();
    info_.reserve(n_);
    for (const graph::Node& node : g.nodes()) info_.push_back(ops::classify(node.target));
    realized_.assign(n_, false);
    inlinable_.assign(n_, false);
    epilogue_of_.assign(n_, -1);
    layout_fixed_.assign(n_, false);
    channels_last_.assign(n_, false);
    layout_opt_ = decide_layout_opt(g, options);
    alias_.resize(n_);
    origins_.resize(n_);
    opcount_.assign(n_, 0);
    window_reads_.assign(n_, 0);
    stamp_.assign(n_, 0);
    for (NodeId i = 0; i < n_; ++i) alias_[i] = i;
    graph_output_.assign(n_, false);
    for (NodeId i = 0; i < n_; ++i) {
      if (g.node(i).op != graph::OpKind::output) continue;
      for (const NodeId out : g.inputs(i)) graph_output_[out] = true;
    }
  }

  LoweredGraph run() {
    std::vector<NodeId> outputs;
    for (NodeId i = 0; i < n_; ++i) {
      const graph::Node& node = g_.node(i);
      if (node.op == graph::OpKind::output) {
        outputs = g_.inputs(i);
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
      if (!ops::find_op(node.target)) ++unknown_[node.target];
      lower(i);
      // GraphLowering.run_node fixes a graph output's strides as it is lowered, which puts it in
      // memory then: later readers load it rather than recompute it.
      // lowering.copy_ -> mutate_to: a graph input mutated in place is stored to right away
      // (MutationLayout), by the kernel that computes its new value.
      if (graph_output_[i] || ops::op_base_name(node.target) == "copy_") {
        realize(i);
        layout_fixed_[storage(i)] = true;
      }
    }
    for (const NodeId out : outputs) realize(out);
    LoweredGraph lowered{std::move(sched_), {}};
    for (auto& [target, count] : unknown_) lowered.unknown_ops.push_back({target, count});
    return lowered;
  }

 private:
  void lower(NodeId i) {
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
    channels_last_[i] = channels_last(i, args);
    if (ops::op_base_name(g_.node(i).target) == "cat" && lower_cat(i, gathered)) return;
    switch (info_[i].lowering) {
      case Lowering::getitem:
        return lower_getitem(i, args);
      case Lowering::view:
      case Lowering::pointwise:
        if (pointless_view(g_, i)) std::erase(gathered, i);
        origins_[i] = std::move(gathered);
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

  // lowering.cat: a pointwise cat (masked loads of every input, inlined like any Pointwise) for
  // at most max_pointwise_cat_inputs inputs when its users are all pointwise and some input is
  // not in memory yet, or when every input needs a copy anyway and none carries a reduction;
  // else a ConcatKernel. Returns false for the pointwise form, which lowers as a pointwise op.
  bool lower_cat(NodeId i, const std::vector<NodeId>& gathered) {
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
      const bool lowered = !realized_[base] || layout_fixed_[base];
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
      if (base == p && realized_[p] && !layout_fixed_[p]) {
        layout_fixed_[p] = true;
        reads.push_back(alias_[p]);
        continue;
      }
      const std::int64_t copy = next_buffer_++;
      push(p, gathered, read_set(p), copy, numel_of(p), 1, false, true, "");
      if (realized_[p]) {
        // A copy of a buffer reads it where it lies: copies of one buffer into several cats
        // share the load and fuse.
        sched_.back().read_deps = {make_dep(alias_[p], iteration_coords(model_.sizes(p)),
                                            layout_strides(p), model_.numel(p),
                                            model_.element_bytes(p))};
      } else {
        set_value_deps(p);
      }
      reads.push_back(copy);
    }
    std::sort(reads.begin(), reads.end());
    realized_[i] = true;
    layout_fixed_[i] = true;
    push(i, {i}, std::move(reads), i, numel_of(i), 1, false, false, "");
    sched_.back().launches = false;  // the ConcatKernel itself only allocates
    return true;
  }

  // is_pointwise_use: a pointwise op, a cat or pad (which lower pointwise-style too), or a view
  // whose own users all are.
  bool pointwise_use(NodeId u) const {
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

  // can_fuse_reduction: P is a reduction's buffer, or a value not in memory that reads one.
  bool reads_reduction(NodeId p) {
    const std::vector<std::int64_t> reads = read_set(p);
    return std::any_of(reads.begin(), reads.end(),
                       [&](std::int64_t b) { return reduction_buffers_.count(b) > 0; });
  }

  // Whether node I's 4-d value is laid out channels-last in Inductor: as the graph records it,
  // or, with layout optimisation, as a convolution's result or a value computed from one.
  bool channels_last(NodeId i, const std::vector<NodeId>& args) const {
    const graph::Node& node = g_.node(i);
    if (!node.meta || node.meta->rank() != 4) return false;
    if (recorded_channels_last(node)) return true;
    const std::string_view base = ops::op_base_name(node.target);
    if (base == "convolution") return layout_opt_;
    if (base == "permute" || base == "transpose" || base == "t") return false;
    return std::any_of(args.begin(), args.end(), [&](NodeId a) {
      const graph::Node& in = g_.node(a);
      return channels_last_[a] && in.meta && in.meta->rank() == 4;
    });
  }

  // Whether NODE's recorded strides are channels-last (and tell the layouts apart).
  bool recorded_channels_last(const graph::Node& node) const {
    if (!layouts_differ(node) || node.meta->strides.size() != 4) return false;
    return ops::eval_dim(node.meta->strides[1], options_.hints) == 1;
  }

  // getitem of a tuple of views (split) forwards their origins; of a buffer, aliases it. The
  // variance of a Welford reduction is a pointwise of its buffer, so it carries its origin.
  void lower_getitem(NodeId i, const std::vector<NodeId>& args) {
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
    if (realized_[parent] && info_[parent].lowering == Lowering::extern_kernel) {
      // ir.MultiOutput: the output gets a buffer (and a scheduler node) of its own.
      realized_[i] = true;
      push(i, {i}, {static_cast<std::int64_t>(alias_[parent])}, i, numel_of(i), 1, false, false,
           "");
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
  }

  void lower_reduction(NodeId i, const std::vector<NodeId>& args, std::vector<NodeId> gathered) {
    std::vector<std::int64_t> reads;
    for (const NodeId a : args) add_reads(a, reads);
    const std::int64_t total = args.empty() ? 1 : numel_of(args.front());
    const std::int64_t out = std::max<std::int64_t>(1, output_numel(i));
    const bool scan = info_[i].lowering == Lowering::scan;
    std::int64_t rnumel = scan ? 1 : std::max<std::int64_t>(1, total / out);
    if (plain_reduction(g_.node(i).target) &&
        (rnumel == 1 || (rnumel < options_.unroll_rnumel && out > 1))) {
      // Reduction.create: a reduction over so few elements is unrolled into a Pointwise, which
      // inlines into its consumers like any other.
      origins_[i] = std::move(gathered);
      inlinable_[i] = true;
      opcount_[i] = static_cast<std::size_t>(rnumel);
      for (const NodeId a : args) opcount_[i] += realized_[a] ? 0 : opcount_[a];
      return hint_realize(i);
    }
    // lowering.mean is a sum divided by the count: the Reduction is a buffer of its own and
    // the node's value a Pointwise of it, inlined into its readers like any other.
    const bool mean = ops::op_base_name(g_.node(i).target) == "mean";
    const std::int64_t buffer = mean ? next_buffer_++ : static_cast<std::int64_t>(i);
    if (mean) {
      epilogue_of_[i] = buffer;
      origins_[i] = gathered;
      inlinable_[i] = true;
      opcount_[i] = 1;
    } else {
      realized_[i] = true;
      origins_[i] = gathered;  // what a Pointwise made with the reduction carries (a variance)
    }
    // The loads of the reduction's loop decide, where their addresses are known; else the layout.
    const std::optional<bool> voted = scan || args.empty() || !model_.reduced_dims(i)
                                          ? std::nullopt
                                          : inner_by_reads(reduction_reads(i, args, reads), rnumel);
    const bool inner = voted.value_or(inner_reduction(i, args));
    const std::int64_t split = scan ? 1 : reduction_split(rnumel, out, inner, options_);
    if (split > 1) {
      if (ops::op_base_name(g_.node(i).target) == "prepare_softmax_online") {
        // Online softmax never splits: Inductor falls back to amax, then the sum of exp(x - max),
        // each a split reduction of its own.
        const std::int64_t amax = next_buffer_++;
        push_split(i, gathered, reads, amax, out, rnumel, split);
        reads.push_back(amax);
      }
      const std::vector<std::int64_t> all_reads = reads;
      const bool softmax = ops::op_base_name(g_.node(i).target) == "prepare_softmax_online";
      push_split(i, std::move(gathered), std::move(reads), buffer, out, rnumel, split);
      SchedulerNode& first = sched_[sched_.size() - 2];
      first.no_prologue = !inner && out > 1;
      // The first pass reads its input re-indexed by the split: for an inner reduction the same
      // addresses, for an outer one addresses no producer's store matches.
      if (!args.empty()) {
        first.read_deps = reduction_reads(i, args, first.reads);
        if (first.no_prologue) {
          for (MemoryDep& d : first.read_deps) d.split = split;
        }
        if (softmax && sched_.size() >= 4) sched_[sched_.size() - 4].read_deps = first.read_deps;
      }
    } else {
      push(i, std::move(gathered), std::move(reads), buffer, scan ? total : out, rnumel, !scan,
           !scan, scan ? "scan" : "");
      if (!args.empty()) sched_.back().read_deps = reduction_reads(i, args, sched_.back().reads);
    }
    set_reduction_write(i, buffer);
    if (mean) hint_realize(i);
  }

  // The store of reduction I's buffer: its output, over the kept dims.
  void set_reduction_write(NodeId i, std::int64_t buffer) {
    const std::vector<std::int64_t>& sizes = model_.sizes(i);
    if (sizes.empty()) return;
    SchedulerNode& s = sched_.back();
    s.write_dep = make_dep(buffer, iteration_coords(sizes), layout_strides(i), model_.numel(i),
                           model_.element_bytes(i));
  }

  // Whether reduction I reduces its input's innermost dim in memory (an inner reduction): the
  // dim of stride 1, which for a 4-d value in channels-last layout is the channels.
  bool inner_reduction(NodeId i, const std::vector<NodeId>& args) const {
    if (args.empty()) return true;
    const graph::Node& in = g_.node(args.front());
    if (!in.meta || in.meta->rank() == 0) return true;
    const auto rank = static_cast<std::int64_t>(in.meta->rank());
    std::vector<std::int64_t> dims;
    const graph::Node& node = g_.node(i);
    if (node.args.size() > 1) {
      const graph::Argument& d = node.args[1];
      if (d.kind() == graph::Argument::Kind::integer) dims.push_back(d.as_int());
      for (const graph::Argument& item : d.items()) {
        if (item.kind() == graph::Argument::Kind::integer) dims.push_back(item.as_int());
      }
    }
    if (dims.empty()) return true;  // every dim: one output, split as an inner reduction
    std::int64_t innermost = rank - 1;
    if (channels_last_[args.front()] && rank == 4) {
      innermost = 1;
    } else if (in.meta->strides.size() == in.meta->sizes.size()) {
      for (std::int64_t d = 0; d < rank; ++d) {
        const auto u = static_cast<std::size_t>(d);
        if (ops::eval_dim(in.meta->strides[u], options_.hints) == 1 &&
            ops::eval_dim(in.meta->sizes[u], options_.hints) > 1) {
          innermost = d;
        }
      }
    }
    return std::any_of(dims.begin(), dims.end(),
                       [&](std::int64_t d) { return (d < 0 ? d + rank : d) == innermost; });
  }

  // A split reduction: a first kernel reduces `split` partial results per output, a second
  // combines them into BUFFER; both run the code of the same nodes.
  void push_split(NodeId i, std::vector<NodeId> gathered, std::vector<std::int64_t> reads,
                  std::int64_t buffer, std::int64_t out, std::int64_t rnumel, std::int64_t split) {
    const std::int64_t partial = next_buffer_++;
    push(i, gathered, std::move(reads), partial, out * split, (rnumel + split - 1) / split, true,
         true, std::string(kSplitFirstPassNote));
    push(i, std::move(gathered), {partial}, buffer, out, split, true, true,
         std::string(kSplitSecondPassNote));
  }

  void lower_window(NodeId i, const std::vector<NodeId>& args, std::vector<NodeId> gathered) {
    if (const std::size_t window = pool_window_positions(g_.node(i)); window > 0) {
      // lowering.avg_pool2d and _low_memory_max_pool_with_offsets: a Pointwise loading every
      // position of the window of its (realized) input, inlined like any other; each position
      // is a read of its own for the read thresholds.
      for (const NodeId a : args) realize(a);
      origins_[i] = std::move(gathered);
      inlinable_[i] = true;
      opcount_[i] = window;
      window_reads_[i] = window;
      return hint_realize(i);
    }
    std::vector<std::int64_t> reads;
    for (const NodeId a : args) {
      realize(a);
      add_reads(a, reads);
    }
    realized_[i] = true;
    push(i, std::move(gathered), std::move(reads), i, output_numel(i), 1, false, true, "");
  }

  // The loads of unrealized value I, as Inductor counts them (distinct addresses): its buffers,
  // plus every further position of the pooling windows inlined into it.
  std::size_t num_reads(NodeId i) {
    std::size_t reads = read_set(i).size();
    for (const NodeId o : origins_[i]) {
      if (window_reads_[o] > 1 && !realized_[o]) reads += window_reads_[o] - 1;
    }
    return reads;
  }

  void lower_extern(NodeId i, const std::vector<NodeId>& args,
                    const std::vector<NodeId>& gathered) {
    const std::string_view base = ops::op_base_name(g_.node(i).target);
    // Attention calls and a convolution's backward require their inputs in a stride order of
    // their own (sdpa_constraint, constrain_to_fx_strides): an input not yet in memory is
    // computed by a copy made while the call is lowered (ExternKernel.require_stride_order), so
    // its kernel carries the origins of everything the call gathered, the call included. A
    // convolution realizes its inputs first (x.realize()), so they keep their own origins.
    // Without channels-last layout a convolution is constrained too (constrain_conv_to_fx_strides),
    // its bias included.
    const bool constrained =
        info_[i].op_class == ops::OpClass::attention ||
        (info_[i].op_class == ops::OpClass::conv && (base != "convolution" || !layout_opt_));
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
    if (base == "convolution" && layout_opt_) add_layout_copies(args, gathered);
    if (constrained) {
      for (const NodeId a : args) realize_copy(a, gathered);
    }
    std::vector<std::int64_t> reads;
    for (const NodeId a : args) {
      if (bias && a == *bias && std::count(args.begin(), args.end(), a) == 1) continue;
      realize(a);
      layout_fixed_[storage(a)] = true;
      add_reads(a, reads);
    }
    const bool is_template = templates_ && base == "addmm";
    const std::int64_t buffer = bias ? next_buffer_++ : static_cast<std::int64_t>(i);
    push(i, is_template ? gathered : std::vector<NodeId>{i}, std::move(reads), buffer,
         output_numel(i), 1, false, false, "");
    sched_.back().template_gemm = is_template;
    if (!bias) {
      realized_[i] = true;
      layout_fixed_[i] = true;
      return;
    }
    epilogue_of_[i] = buffer;
    origins_[i] = gathered;
    inlinable_[i] = true;
    opcount_[i] = 1 + (realized_[*bias] ? 0 : opcount_[*bias]);
    hint_realize(i);
  }

  // The node argument at position POS of node I, if there is one.
  std::optional<NodeId> arg_node(NodeId i, std::size_t pos) const {
    const graph::Node& node = g_.node(i);
    if (node.args.size() <= pos || node.args[pos].kind() != graph::Argument::Kind::node) {
      return std::nullopt;
    }
    return node.args[pos].as_node();
  }

  // With channels-last layout optimisation (layout_opt), a convolution requires channels-last
  // inputs (require_channels_last): a graph input, whose layout is fixed, is copied while the
  // convolution is lowered, the copy carrying its origins, unless it is channels-last already
  // or both layouts are the same memory (one channel, as in a depthwise weight, or one
  // position, as in a 1x1 weight: Layout.is_stride_ordered ignores dims of size 1). Values
  // computed in the graph take the layout they are asked for at no cost.
  void add_layout_copies(const std::vector<NodeId>& args, const std::vector<NodeId>& gathered) {
    if (args.size() < 2) return;
    for (const NodeId a : {args[1], args[0]}) {
      const graph::Node& node = g_.node(a);
      if (node.op != graph::OpKind::placeholder || !layouts_differ(node) ||
          recorded_channels_last(node)) {
        continue;
      }
      push(a, gathered, {static_cast<std::int64_t>(a)}, next_buffer_++, numel_of(a), 1, false, true,
           std::string(kLayoutCopyNote));
      sched_.back().read_deps = {make_dep(a, iteration_coords(model_.sizes(a)), layout_strides(a),
                                          model_.numel(a), model_.element_bytes(a))};
    }
  }

  // Whether NODE's 4-d value is laid out differently in channels-last and contiguous memory.
  bool layouts_differ(const graph::Node& node) const {
    if (!node.meta || node.meta->rank() != 4) return false;
    const auto dim = [&](std::size_t d) {
      return ops::eval_dim(node.meta->sizes[d], options_.hints);
    };
    return dim(1) > 1 && dim(2) * dim(3) > 1;
  }

  // After a pointwise or view is lowered: the realization Inductor decides right away.
  void hint_realize(NodeId i) {
    const NodeId base = storage(i);
    if (realized_[base] || !inlinable_[base]) return;
    const std::size_t users = users_[i].size();
    const std::size_t reads = num_reads(base);
    const bool extern_user = std::any_of(users_[i].begin(), users_[i].end(), [&](NodeId u) {
      return info_[u].lowering == Lowering::extern_kernel;
    });
    if (users > 1 && extern_user && base != i && read_set(base).size() <= 1 &&
        fixed_layout_user(i)) {
      // GraphLowering.run_node: realize_hint stores only a value reading several buffers, and a
      // user in need_fixed_layout then asks for the view's own strides (require_stride_order):
      // a view of a value not in memory is copied, with the view's origins.
      return realize_copy(i, origins_[i]);
    }
    if ((users > 1 && extern_user) ||
        (users > 1 && (reads > options_.realize_reads_threshold ||
                       opcount_[base] > options_.realize_opcount_threshold)) ||
        reads > options_.realize_acc_reads_threshold) {
      realize(base);
    }
  }

  bool fixed_layout_user(NodeId i) const {
    return std::any_of(users_[i].begin(), users_[i].end(), [&](NodeId u) {
      return needs_fixed_layout(g_.node(u).target, layout_opt_);
    });
  }

  // ExternKernel.copy_input of an input A not yet in memory: a buffer of A's own shape, computed
  // with ORIGINS; what A reads stays unrealized for its other users.
  void realize_copy(NodeId a, const std::vector<NodeId>& origins) {
    const NodeId base = storage(a);
    if (realized_[base] || !inlinable_[base]) return;
    push(a, origins, read_set(a), a, numel_of(a), 1, false, true, "");
    set_value_deps(a);
    realized_[a] = true;
    alias_[a] = a;
  }

  // The node whose storage a chain of unrealized views reads.
  NodeId storage(NodeId i) const {
    while ((info_[i].lowering == Lowering::view || info_[i].lowering == Lowering::getitem) &&
           !realized_[i]) {
      const std::vector<NodeId> args = g_.inputs(i);
      if (args.empty() || realized_[args.front()]) break;
      i = args.front();
    }
    return i;
  }

  void realize(NodeId i) {
    const NodeId base = storage(i);
    if (realized_[base] || !inlinable_[base]) return;
    std::vector<std::int64_t> reads = read_set(base);
    realized_[base] = true;
    push(base, origins_[base], std::move(reads), base, output_numel(base), 1, false, true, "");
    set_value_deps(base);
  }

  bool is_sym(NodeId i) const {
    const graph::Node& node = g_.node(i);
    return node.meta && node.meta->is_sym_scalar();
  }

  // The strides of the buffer holding node I's value: channels-last where Inductor lays it out
  // so, as recorded where the layout is fixed (inputs, library calls), else contiguous.
  std::vector<std::int64_t> layout_strides(NodeId i) const {
    const std::vector<std::int64_t>& sizes = model_.sizes(i);
    if (channels_last_[i] && sizes.size() == 4) {
      return {sizes[1] * sizes[2] * sizes[3], 1, sizes[3] * sizes[1], sizes[1]};
    }
    const graph::Node& node = g_.node(i);
    if (!node.is_op() || graph_output_[i] || info_[i].lowering == Lowering::extern_kernel) {
      return model_.strides(i);
    }
    std::vector<std::int64_t> strides(sizes.size(), 1);
    for (std::size_t k = sizes.size(); k-- > 1;) strides[k - 1] = strides[k] * sizes[k];
    return strides;
  }

  // The last scheduler node's loads and store when it computes value ROOT over ROOT's shape.
  void set_value_deps(NodeId root) {
    SchedulerNode& s = sched_.back();
    const std::vector<std::int64_t>& sizes = model_.sizes(root);
    if (sizes.empty() && model_.numel(root) != s.numel) return;
    s.read_deps = walk_deps({{root, iteration_coords(sizes)}}, model_.numel(root), s.reads, true);
  }

  // The loads of reduction (or scan) I's kernel: its input over the kept dims, then the reduced
  // ones; every input at the same coordinates for a composite reduction.
  std::vector<MemoryDep> reduction_reads(NodeId i, const std::vector<NodeId>& args,
                                         const std::vector<std::int64_t>& fallback) {
    const NodeId in = arg_node(i, 0).value_or(args.front());
    const std::vector<std::int64_t>& sizes = model_.sizes(in);
    const std::optional<std::vector<std::int64_t>> dims = model_.reduced_dims(i);
    const Coords coords = dims ? reduction_coords(sizes, *dims) : iteration_coords(sizes);
    std::vector<ValueLoad> start{{in, coords}};
    if (!dims) {
      for (const NodeId a : args) {
        if (a == in || is_sym(a)) continue;
        start.push_back({a, model_.sizes(a) == sizes
                                ? coords
                                : Coords(std::max<std::size_t>(model_.sizes(a).size(), 1),
                                         IndexExpr{{}, 0, true})});
      }
    }
    return walk_deps(std::move(start), model_.numel(in), fallback, false);
  }

  // The loads of a kernel computing value ROOT at coordinates COORDS of an iteration of
  // ITER_NUMEL: the walk through everything inlined into it down to buffers.
  // EXPAND_FIRST: the first load is the kernel's own value, computed rather than loaded.
  std::vector<MemoryDep> walk_deps(std::vector<ValueLoad> stack, std::int64_t iter_numel,
                                   const std::vector<std::int64_t>& fallback, bool expand_first) {
    std::vector<MemoryDep> deps;
    std::set<std::vector<std::int64_t>> seen;
    std::size_t steps = 0;
    bool first = expand_first;
    while (!stack.empty()) {
      ValueLoad load = std::move(stack.back());
      stack.pop_back();
      const NodeId v = load.value;
      if (++steps > kMaxWalkSteps) {
        // Too many distinct loads to follow: each buffer read at an address of its own.
        deps.clear();
        for (const std::int64_t b : fallback) deps.push_back(opaque_dep(b));
        return deps;
      }
      if (!seen.insert(load_key(load)).second || is_sym(v)) continue;
      const bool root_step = first;
      first = false;
      if (realized_[v] && !root_step) {
        add_dep(deps, make_dep(alias_[v], load.coords, layout_strides(v), iter_numel,
                               model_.element_bytes(v)));
        continue;
      }
      if (epilogue_of_[v] >= 0) {
        add_dep(deps, make_dep(epilogue_of_[v], load.coords, layout_strides(v), iter_numel,
                               model_.element_bytes(v)));
        const std::optional<NodeId> bias =
            ops::op_base_name(g_.node(v).target) == "convolution" ? arg_node(v, 2) : std::nullopt;
        if (bias && load.coords.size() > 1) stack.push_back({*bias, Coords{load.coords[1]}});
        continue;
      }
      for (ValueLoad& next : model_.loads(v, load.coords)) stack.push_back(std::move(next));
    }
    return deps;
  }

  std::vector<std::int64_t> read_set(NodeId i) {
    std::vector<std::int64_t> reads;
    add_reads(i, reads);
    return reads;
  }

  // The buffers an unrealized value loads, found by walking through inlined producers once.
  void add_reads(NodeId root, std::vector<std::int64_t>& reads) {
    ++generation_;
    std::vector<NodeId> stack{root};
    while (!stack.empty()) {
      const NodeId i = stack.back();
      stack.pop_back();
      if (stamp_[i] == generation_) continue;
      stamp_[i] = generation_;
      if (realized_[i]) {
        if (!is_sym(i)) reads.push_back(alias_[i]);
        continue;
      }
      if (epilogue_of_[i] >= 0) {
        // The buffer it is a Pointwise of, plus a convolution's bias.
        reads.push_back(epilogue_of_[i]);
        const auto bias =
            ops::op_base_name(g_.node(i).target) == "convolution" ? arg_node(i, 2) : std::nullopt;
        if (bias) stack.push_back(*bias);
        continue;
      }
      for (const NodeId a : g_.inputs(i)) stack.push_back(a);
    }
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
  }

  // The buffers a kernel running ORIGINS loads through ops.indirect_indexing: what the data
  // operand of an index, gather or embedding among them reads, when its indices are loaded from
  // memory. The index of such a load holds a temporary, so it matches no write
  // (Scheduler.fusable_read_and_write) and no other read. Indices computed from iota and
  // constants alone are folded into the load's index expression (IndexPropagation): direct.
  std::vector<std::int64_t> indirect_reads(const std::vector<NodeId>& origins) {
    std::vector<std::int64_t> reads;
    for (const NodeId o : origins) {
      const std::optional<std::size_t> indices = indirect_indices_position(g_.node(o).target);
      if (!indices || g_.node(o).args.size() <= *indices) continue;
      std::vector<std::int64_t> index_reads;
      g_.node(o).args[*indices].for_each_node([&](NodeId n) { add_reads(n, index_reads); });
      if (index_reads.empty()) continue;
      if (const std::optional<NodeId> data = arg_node(o, 0)) add_reads(*data, reads);
    }
    return reads;
  }

  std::int64_t numel_of(NodeId i) const {
    const graph::Node& node = g_.node(i);
    return node.meta && !node.meta->is_sym_scalar() ? ops::numel(*node.meta, options_.hints) : 1;
  }

  // Tuple results (var_mean, pooling with offsets) have no meta: their getitems have.
  std::int64_t output_numel(NodeId i) const {
    if (g_.node(i).meta) return numel_of(i);
    for (const NodeId u : users_[i]) {
      if (g_.node(u).meta) return numel_of(u);
    }
    return 1;
  }

  void push(NodeId node, std::vector<NodeId> origins, std::vector<std::int64_t> reads,
            std::int64_t buffer, std::int64_t numel, std::int64_t rnumel, bool reduction,
            bool fusable, std::string note) {
    SchedulerNode s;
    s.node = node;
    for (const std::int64_t b : reads) s.read_deps.push_back(opaque_dep(b));
    const std::vector<std::int64_t>& sizes = model_.sizes(node);
    const std::int64_t bytes = model_.element_bytes(node);
    s.write_dep =
        model_.numel(node) == numel && !sizes.empty()
            ? make_dep(buffer, iteration_coords(sizes), layout_strides(node), numel, bytes)
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

  const graph::Graph& g_;
  const PlanOptions& options_;
  bool templates_;
  NodeId n_;
  IndexModel model_;
  std::vector<std::vector<NodeId>> users_;
  std::vector<ops::OpInfo> info_;
  std::vector<bool> realized_;
  // A Pointwise IR not yet in memory: a pointwise op, or a reduction unrolled into one.
  std::vector<bool> inlinable_;
  std::vector<bool> graph_output_;
  // Buffers whose layout is settled: graph inputs and outputs, library calls' results, inputs
  // of library calls, values realized into a ConcatKernel. A cat must copy them.
  std::vector<bool> layout_fixed_;
  std::vector<bool> channels_last_;
  bool layout_opt_ = false;
  std::set<std::int64_t> reduction_buffers_;
  // For a value Inductor computes as a Pointwise over a buffer of its own making (a
  // convolution's bias added after the library call, a mean divided after its sum): that buffer.
  std::vector<std::int64_t> epilogue_of_;
  std::vector<NodeId> alias_;
  std::vector<std::vector<NodeId>> origins_;
  std::vector<std::size_t> opcount_;
  std::vector<std::size_t> window_reads_;  // a pooling window's positions, each a load
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  std::int64_t next_buffer_ = static_cast<std::int64_t>(n_);
  std::vector<SchedulerNode> sched_;
  std::map<std::string, std::size_t> unknown_;
  // A walk of more steps than this (a long chain of unrolled reductions) gives up on addresses.
  static constexpr std::size_t kMaxWalkSteps = 4096;
};

}  // namespace

LoweredGraph lower_graph(const graph::Graph& graph, const PlanOptions& options,
                         bool gemm_templates) {
  return Lowerer(graph, options, gemm_templates).run();
}

}  // namespace fxscope::fusion
