// The state of one lowering (lowering.cpp): Inductor's GraphLowering.run_node replayed node by
// node. Internal to engine/fusion: its members are defined in lowering.cpp (the walk and the
// realization rules), lowering_reductions.cpp (reductions, scans and pooling windows) and
// lowering_loads.cpp (the buffers and addresses a kernel loads) and lowering_scatter.cpp
// (index_put as a Scatter).

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/memory_index.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion::detail {

// torch._prims_common.is_non_overlapping_and_dense: some order of the dims is contiguous.
bool dense(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides);

using graph::NodeId;

class Lowerer {
 public:
  Lowerer(const graph::Graph& g, const PlanOptions& options, bool gemm_templates);

  LoweredGraph run();

 private:
  void lower(NodeId i);

  // lowering.cat: a pointwise cat (masked loads of every input, inlined like any Pointwise) for
  // at most max_pointwise_cat_inputs inputs when its users are all pointwise and some input is
  // not in memory yet, or when every input needs a copy anyway and none carries a reduction;
  // else a ConcatKernel. Returns false for the pointwise form, which lowers as a pointwise op.
  bool lower_cat(NodeId i, const std::vector<NodeId>& gathered);

  // lowering.inplace_constant_pad_nd (config.inplace_padding): a 2-d pad whose one user is mm or
  // addmm cannot fuse into it, so its input is realized first (a view's storage), whatever
  // the padding; the pad is then a Pointwise over that buffer. The pad's origins are gathered
  // before (GraphLowering.run_node's gather_origins), so they hold the input's. The same under
  // max-autotune: the pad's kernel (or a template's prologue) and the GEMM's template carry
  // the input's origins, the input's own kernel stores it (docs/fusion-rules.md).
  bool pads_for_gemm(NodeId i) const;

  // Whether nothing that reads I (through views) fixes its layout before the graph is
  // finalized: no library call, cat, scatter, scan or graph output.
  bool layout_stays_flexible(NodeId i) const;

  // Lays the value V, just pushed as the last scheduler node, out with STRIDES, and orders the
  // node's loops by them.
  void store_in_order(NodeId v, std::vector<std::int64_t> strides);

  // lowering.expand: an input broadcast to at least twice its size is marked reused that many
  // times (mark_reuse), so should_realize_on_reuse stores it when it makes more than
  // realize_reads_threshold loads (OpCounterCSE's read_buffers: one per distinct load) or
  // has a large inner function.
  void expand_reuse(NodeId i, NodeId in);

  // lowering.index_put_impl_: index_put (into a clone of its destination) and index_put_ store
  // an ir.Scatter into the realized destination, the values inlined into it; boolean indices
  // and atomic adds of int64 or bool fall back to the library. Returns false for the fallback.
  // The end of a Scatter (index_put, scatter) just pushed: its opaque store of node I into
  // DEST_BUFFER's copy, realized as laid out.
  void close_scatter(NodeId i, std::int64_t dest_buffer);
  bool lower_scatter(NodeId i, const std::vector<NodeId>& gathered);
  // lowering.scatter_reduce_ (lowering_dim_scatter.cpp): scatter, into a clone of its
  // destination, is an ir.Scatter over the index's sizes, the source inlined; sources
  // tl.atomic_add cannot store fall back to the library. False for the fallback.
  bool lower_dim_scatter(NodeId i, const std::vector<NodeId>& gathered);

  // lowering.make_foreach_pointwise (lowering_foreach.cpp): element K of a foreach op is a
  // Pointwise of the items at position K of its lists, held here by the getitem taking it out.
  // All elements are realized together, as one foreach list, when the op has no users, writes in
  // place, or has a user (through its getitems) that is no foreach op. Returns false for any op
  // that is not one of Inductor's foreach lowerings.
  bool lower_foreach(NodeId i);

  // What value I is computed from: for a foreach element, its items (lowering_ops.h); else its
  // graph inputs.
  std::vector<NodeId> value_inputs(NodeId i) const;

  // is_pointwise_use: a pointwise op, a cat or pad (which lower pointwise-style too), or a view
  // whose own users all are.
  bool pointwise_use(NodeId u) const;

  // can_fuse_reduction: P is a reduction's buffer, or a value not in memory that reads one.
  bool reads_reduction(NodeId p);

  // Whether node I's 4-d value is laid out channels-last in Inductor: as the graph records it,
  // or, with layout optimisation, as a convolution's result or a value computed from one.
  bool channels_last(NodeId i, const std::vector<NodeId>& args) const;

  // Whether NODE's recorded strides are channels-last (and tell the layouts apart).
  bool recorded_channels_last(const graph::Node& node) const;

  // getitem of a tuple of views (split) forwards their origins; of a buffer, aliases it. The
  // variance of a Welford reduction is a pointwise of its buffer, so it carries its origin.
  void lower_getitem(NodeId i, const std::vector<NodeId>& args);

  void lower_reduction(NodeId i, const std::vector<NodeId>& args, std::vector<NodeId> gathered);

  // lowering.sort_stable -> ir.Sort.create on a GPU: a sort along a dim of at most 512 elements
  // (a persistent kernel) is two Sort nodes mimicking a reduction over that dim, the values and
  // int16 indices, each realized; the indices the graph reads are a Pointwise converting them to
  // int64, made with the sort's origins. Returns false for ATen's sort (sort_fallback).
  bool lower_sort(NodeId i, const std::vector<NodeId>& gathered);

  // The loads of reduction I's loop as Reduction.num_splits votes on them (inner_by_reads): its
  // loads (reduction_reads), an address opaque as a whole replaced by its steps along the
  // reduced dims where those are plain (the kept coordinates at zero), OUT rows.
  std::vector<MemoryDep> vote_reads(NodeId i, const std::vector<NodeId>& args,
                                    const std::vector<std::int64_t>& reads, std::int64_t out);

  // The store of reduction I's buffer: its output, over the kept dims.
  void set_reduction_write(NodeId i, std::int64_t buffer);

  // ComputedBuffer.decide_layout and simplify_and_reorder for reduction I, the last scheduler
  // node, writing BUFFER (lowering_loop_order.cpp): its output, read by pointwise users only, is
  // laid out in the order its loads walk memory (get_fill_order), and its kept loops run in the
  // order its store and loads vote (pick_loop_order), so its addresses match only kernels that
  // walk memory the same way.
  void order_reduction_loops(NodeId i, std::int64_t buffer, std::int64_t rnumel);
  // A stored Pointwise V (the last scheduler node) runs its loops in the order its store and
  // loads vote (lowering_loop_order.cpp).
  void order_pointwise_loops(NodeId v);

  // The first pass FIRST of an outer reduction I split in SPLIT parts (lowering_loop_order.cpp):
  // where its input is a buffer whose dims are the parts, the kept dims and a part's rows, the
  // wrapped loader reads it through as many loop variables as the buffer's writer has, so that
  // writer, reordering its loops (shared_data_after_reordering_loop), fuses into the pass as a
  // prologue. The pass then reads its input at those addresses and takes prologues.
  void split_parts_as_loops(NodeId i, const std::vector<NodeId>& args, std::int64_t out,
                            std::int64_t rnumel, std::int64_t split, SchedulerNode& first);

  // Whether reduction I reduces its input's innermost dim in memory (an inner reduction): the
  // dim of stride 1, which for a 4-d value in channels-last layout is the channels.
  bool inner_reduction(NodeId i, const std::vector<NodeId>& args) const;

  // Whether a dim reduction I reduces of its input is symbolic.
  bool symbolic_reduced_size(NodeId i, const std::vector<NodeId>& args) const;
  // A split reduction: a first kernel reduces `split` partial results per output, a second
  // combines them into BUFFER; all run the code of the same nodes. SPLIT2 > 1: the first pass is
  // itself split in SPLIT2 (Reduction.create on the first layer splits again), a middle kernel
  // combining its parts. COMBINE > 1: a middle kernel combines the parts in COMBINE groups first
  // (a Welford reduction's combine, split again).
  struct SplitPasses {
    std::int64_t split = 1;
    std::int64_t split2 = 1;
    std::int64_t combine = 1;
  };
  void push_split(NodeId i, std::vector<NodeId> gathered, std::vector<std::int64_t> reads,
                  std::int64_t buffer, std::int64_t out, std::int64_t rnumel, SplitPasses passes,
                  ReductionHint hint);

  void lower_window(NodeId i, const std::vector<NodeId>& args, std::vector<NodeId> gathered);

  // The loads of unrealized value I, as Inductor counts them (distinct addresses): its buffers,
  // plus every further position of the pooling windows inlined into it.
  std::size_t num_reads(NodeId i);

  // The further reads of unrealized value ROOT that Inductor counts and the buffers here do
  // not: each output of a Welford reduction it loads beyond the first.
  std::size_t welford_extra_reads(NodeId root);
  // Whether getitem I is the variance of a var_mean (a Pointwise of its m2 in Inductor), and
  // the correction var_mean WELFORD divides by.
  bool welford_variance(NodeId i) const;
  double welford_correction(NodeId welford) const;

  void lower_extern(NodeId i, const std::vector<NodeId>& args, const std::vector<NodeId>& gathered);

  // Higher-order ops (lowering_higher_order.cpp): control flow around subgraphs
  // (runs_subgraphs), which launches nothing here, the planner planning each subgraph on its
  // own, a user's Triton kernel (user_triton_kernel) and flex attention's templates. False for
  // any other op (lowered_higher_order).
  bool lower_higher_order(NodeId i, const std::vector<NodeId>& args,
                          const std::vector<NodeId>& gathered);
  // Whether node I reads the buffer of value A again after node AFTER (through views of it).
  bool read_after(NodeId a, NodeId after) const;

  // The node argument at position POS of node I, if there is one.
  std::optional<NodeId> arg_node(NodeId i, std::size_t pos) const;

  // Gives every dependency of every scheduler node the number of loops its node runs
  // (MemoryDep.vars), lowering_loop_vars.cpp.
  void count_loop_vars();

  // With channels-last layout optimisation (layout_opt), a convolution requires channels-last
  // inputs (require_channels_last): a graph input, whose layout is fixed, is copied while the
  // convolution is lowered, the copy carrying its origins, unless it is channels-last already
  // or both layouts are the same memory (one channel, as in a depthwise weight, or one
  // position, as in a 1x1 weight: Layout.is_stride_ordered ignores dims of size 1). Values
  // computed in the graph take the layout they are asked for at no cost.
  void add_store_origin(NodeId i);
  void add_layout_copies(const std::vector<NodeId>& args, const std::vector<NodeId>& gathered);

  // kernel.conv.convolution with layout_opt: x.realize(), then require_channels_last(x). An
  // input that is a view of a value stores that value with its own origins (BaseView.realize
  // realizes its storage); the view, a ReinterpretView of a buffer laid out contiguous, is then
  // copied to channels-last by copy_input, the copy carrying the convolution's origins. A view
  // of a channels-last value (a channel slice of a convolution's output) needs no copy.
  void add_view_layout_copies(const std::vector<NodeId>& args, const std::vector<NodeId>& gathered);

  // Whether NODE's 4-d value is laid out differently in channels-last and contiguous memory.
  bool layouts_differ(const graph::Node& node) const;

  // kernel.conv.convolution without layout_opt: once its inputs are in memory, conv_layout's
  // output stride order (the convolution's recorded strides: channels-last where its input or
  // weight is) is required of the input and the weight (require_stride_order). Operand A of
  // convolution I laid out in the other order is copied by a kernel carrying the convolution's
  // GATHERED origins; returns the copy's buffer, or nothing where A is laid out as required.
  std::optional<std::int64_t> stride_order_copy(NodeId i, NodeId a,
                                                const std::vector<NodeId>& gathered);
  // The same for a 1-d or 3-d convolution: operand A, laid out as the graph recorded it in
  // another stride order than convolution I's output, is copied in that order.
  std::optional<std::int64_t> other_rank_copy(NodeId i, NodeId a,
                                              const std::vector<NodeId>& gathered);

  // After a pointwise or view is lowered: the realization Inductor decides right away.
  void hint_realize(NodeId i);

  // GraphLowering.run_node (is_input_for_as_strided): a dense value that an as_strided or resize
  // reads is required in its FX strides as it is lowered (require_stride_order), which stores
  // it then, before any later reader gathers its origins (lowering_mutation.cpp).
  void realize_for_as_strided(NodeId i);

  // lowering.copy_ -> mutate_to into a view of a buffer the graph computes (a ReinterpretView,
  // not a StorageBox): MutationLayoutSHOULDREMOVE.realize_into (lowering_mutation.cpp). The
  // buffer the view reads, or nothing where copy_ I writes no such view.
  std::optional<std::int64_t> mutated_buffer(NodeId i) const;
  // GraphLowering.mark_buffer_mutated: every value not yet in memory that reads BUFFER, and that
  // a node after copy_ COPY reads, is stored before the mutation, so it keeps the old contents.
  void realize_readers_of(std::int64_t buffer, NodeId copy);
  // The mutation just pushed (copy_ I, storing into BUFFER): its load of the buffer is
  // Scheduler's StarDep on it (no store matches it, so the buffer's writer never fuses with the
  // mutation), and later loads of the buffer read the mutation's output (mutation_renames).
  void mutate_buffer(NodeId i, std::int64_t buffer);

  bool fixed_layout_user(NodeId i) const;

  // ExternKernel.copy_input of an input A not yet in memory: a buffer of A's own shape, computed
  // with ORIGINS; what A reads stays unrealized for its other users.
  // Sets lazy_view_ and flat_view_ for view I of ARGS.
  void mark_flat_view(NodeId i, const std::vector<NodeId>& args);
  // Which dims of node I's value have symbolic sizes in Inductor's IR: as the graph records
  // them, except for an adaptive average pooling whose sizes agree (lowering._adaptive_avg_pool2d
  // returns clone(x), sized as its input, whose sizes the guard only hints).
  std::vector<bool> ir_symbolic_dims(NodeId i) const;
  // GraphLowering.run_node for a graph output that is a flat view: result.realize() stores the
  // value it views, then require_stride_order fails to reinterpret the view (
  // convert_to_reinterpret_view) and copies it (copy_input), the copy carrying the view's
  // origins.
  void copy_output_view(NodeId i);
  // Whether NODE is a tensor constant GraphLowering.get_attr inlines (can_inline_constant).
  bool inlined_constant(const graph::Node& node) const;
  void realize_copy(NodeId a, const std::vector<NodeId>& origins);

  // The node whose storage a chain of unrealized views reads.
  NodeId storage(NodeId i) const;

  // Stores the value node I reads (its storage) in a buffer of its own. REQUIRED: the strides a
  // caller requires of it (ExternKernel.require_stride_order), which fix its layout; empty: the
  // layout stays flexible and is decided by its reads (get_fill_order).
  void realize(NodeId i, std::vector<std::int64_t> required = {});

  // GraphLowering.run_node's maybe_apply_channels_last_stride_order: whether value I, about to
  // be realized for its reuse or its reads, is required in channels-last stride order: a dense
  // 4-d value (its FX strides) that prefers channels-last (nodes_prefer_channels_last), no
  // graph output and read by no as_strided or resize.
  bool stores_channels_last(NodeId i) const;
  // The value node I (a pointwise value not in memory, or a view of one) stored channels-last,
  // as its 4-d sizes read as N, C, H, W; a view is copied, its storage left inlined.
  void realize_channels_last(NodeId i);
  // The origins a node made while node I is lowered carries (IRNode.current_origins in
  // GraphLowering.run_node): I's own, and I itself.
  std::vector<NodeId> run_node_origins(NodeId i) const;

  bool is_sym(NodeId i) const;

  // The strides of the buffer holding node I's value: channels-last where Inductor lays it out
  // so, as recorded where the layout is fixed (inputs, library calls), else contiguous.
  std::vector<std::int64_t> layout_strides(NodeId i) const;
  // Where those strides come from: the order its reads decided (fill_strides_), channels-last,
  // as recorded (inputs, graph outputs, library calls), or dense over its sizes.
  enum class LayoutSource { filled, channels_last, recorded, dense };
  LayoutSource layout_source(NodeId i) const;
  // Per dim of node I's buffer (layout_strides), whether Inductor's symbolic stride expands with
  // a constant term of 1 though it is no 1 (MemoryDep.lone_mults); empty where no stride is.
  std::vector<bool> lone_strides(NodeId i) const;
  // The address of node I's value, held in BUFFER, loaded or stored at COORDS by a kernel of
  // ITER_NUMEL iterations (make_dep over layout_strides, lone strides marked).
  MemoryDep layout_dep(std::int64_t buffer, const Coords& coords, NodeId i,
                       std::int64_t iter_numel) const;

  // The last scheduler node's loads and store when it computes value ROOT over ROOT's shape.
  void set_value_deps(NodeId root);

  // The loads of reduction (or scan) I's kernel: its input over the kept dims, then the reduced
  // ones; every input at the same coordinates for a composite reduction.
  std::vector<MemoryDep> reduction_reads(NodeId i, const std::vector<NodeId>& args,
                                         const std::vector<std::int64_t>& fallback);

  // The loads of a kernel computing value ROOT at coordinates COORDS of an iteration of
  // ITER_NUMEL: the walk through everything inlined into it down to buffers.
  // EXPAND_FIRST: the first load is the kernel's own value, computed rather than loaded.
  std::vector<MemoryDep> walk_deps(std::vector<ValueLoad> stack, std::int64_t iter_numel,
                                   const std::vector<std::int64_t>& fallback, bool expand_first);

  std::vector<std::int64_t> read_set(NodeId i);
  // A read of a loadless buffer (loadless_) made directly, not through a view: it loads nothing.
  bool inlined_fill(NodeId i, bool through_view) const;

  // ir.Loops.inner_fn_opcount of unrealized value ROOT over its own loop: OpCounterCSE names
  // each distinct value once, so an inlined producer computed twice from the same loads counts
  // once and from other loads (the two halves of a slice) twice; each distinct load counts too,
  // and those at an address that is not a constant are its nontrivial reads.
  struct InnerFnCount {
    std::size_t ops = 0;
    std::size_t loads = 0;
    std::size_t nontrivial_reads = 0;
  };
  InnerFnCount inner_fn_count(NodeId root);

  // OpCounterCSE's names, given bottom-up: a load by its buffer and address, an op by its text
  // over its operands' names, so one computed again from the same loads is the same name.
  struct ValueNumbering {
    std::map<std::string, std::size_t> names;
    std::map<std::vector<std::int64_t>, std::size_t> by_load;  // (value, coords) already named
    std::set<std::string> constants;
    std::int64_t iter_numel = 1;
    // Within the data operand of an indirect load: the name of the index it is loaded through.
    // The index is a temporary, so loads through different indices are different names.
    std::int64_t indirect_salt = 0;
    std::size_t steps = 0;
    InnerFnCount count;
  };
  // The name of value V at COORDS within the inner function being counted; ROOT: the value
  // itself, computed rather than loaded.
  std::size_t value_number(NodeId v, const Coords& coords, ValueNumbering& state, bool root);

  // The ops one inlined node adds to its reader's inner function (OpCounterCSE): its op, a
  // constant for each scalar operand, and for a pointwise cat the index tests and masked loads
  // of lowering.pointwise_cat. CONSTANTS: the scalars already named in this inner function.
  std::size_t node_ops(NodeId i, std::set<std::string>& constants) const;
  // The ops of lowering.slice_scatter's or select_scatter's inner function at COORDS: the
  // position along the dim, its tests against the slice's bounds, the masked load and the
  // where; NAMED: the ops and constants already named in this inner function.
  std::size_t scatter_mask_ops(NodeId v, const Coords& coords, std::set<std::string>& named) const;

  // The buffers an unrealized value loads, found by walking through inlined producers once.
  void add_reads(NodeId root, std::vector<std::int64_t>& reads);

  // The buffers a kernel running ORIGINS loads through ops.indirect_indexing: what the data
  // operand of an index, gather or embedding among them reads, when its indices are loaded from
  // memory. The index of such a load holds a temporary, so it matches no write
  // (Scheduler.fusable_read_and_write) and no other read. Indices computed from iota and
  // constants alone are folded into the load's index expression (IndexPropagation): direct.
  std::vector<std::int64_t> indirect_reads(const std::vector<NodeId>& origins);

  std::int64_t numel_of(NodeId i) const;

  // Tuple results (var_mean, pooling with offsets) have no meta: their getitems have.
  std::int64_t output_numel(NodeId i) const;

  void push(NodeId node, std::vector<NodeId> origins, std::vector<std::int64_t> reads,
            std::int64_t buffer, std::int64_t numel, std::int64_t rnumel, bool reduction,
            bool fusable, std::string note);

  const graph::Graph& g_;
  const PlanOptions& options_;
  bool templates_;
  NodeId n_;
  IndexModel model_;
  std::vector<std::vector<NodeId>> users_;
  std::vector<ops::OpInfo> info_;
  std::vector<bool> realized_;
  // ComputedBuffer.make_loader: a realized Pointwise that loads nothing (a zero fill, an iota)
  // and is never mutated is recomputed by its readers, which load no buffer of it.
  std::vector<bool> loadless_;
  // A Pointwise IR not yet in memory: a pointwise op, or a reduction unrolled into one.
  std::vector<bool> inlinable_;
  std::vector<bool> graph_output_;
  // Buffers whose layout is settled: graph inputs and outputs, library calls' results, inputs
  // of library calls, values realized into a ConcatKernel. A cat must copy them.
  std::vector<bool> layout_fixed_;
  // max-autotune GEMMs lowered as templates (a MultiTemplateBuffer): ConcatKernel's
  // can_realize_into_without_copy holds for them, so a cat neither lowers nor copies them.
  std::vector<bool> template_output_;
  // Realized values and reductions stored in their reads' order (get_fill_order): their
  // strides, else empty.
  std::vector<std::vector<std::int64_t>> fill_strides_;
  // A view made over a value not in memory (a View chain, not a ReinterpretView of a buffer).
  std::vector<bool> lazy_view_;
  // A lazy view whose chain holds a reshape indexed through the flattened tensor
  // (reshape_needs_flat_index): its index is FloorDiv and ModularIndexing terms that
  // ExternKernel.convert_to_reinterpret_view cannot simplify back to strides.
  std::vector<bool> flat_view_;
  std::vector<bool> channels_last_;
  bool layout_opt_ = false;
  // GraphLowering.is_backward: the graph takes incoming gradients (tangents).
  bool backward_ = false;
  std::vector<bool> prefer_channels_last_;  // nodes_prefer_channels_last, with layout_opt_
  std::set<std::int64_t> reduction_buffers_;
  // For a value Inductor computes as a Pointwise over a buffer of its own making (a
  // convolution's bias added after the library call, a mean divided after its sum): that buffer.
  std::vector<std::int64_t> epilogue_of_;
  // For a sort lowered as ir.Sort: the buffer of its int16 indices (its values are the node's
  // own buffer), else -1.
  std::vector<std::int64_t> sort_indices_;
  std::vector<NodeId> alias_;
  std::vector<std::vector<NodeId>> origins_;
  std::vector<std::size_t> opcount_;
  std::vector<std::size_t> window_reads_;  // a pooling window's positions, each a load
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  std::int64_t next_buffer_ = static_cast<std::int64_t>(n_);
  std::vector<SchedulerNode> sched_;
  // For the getitem holding element K of a foreach op: that op (n_ for any other node) and K.
  std::vector<NodeId> foreach_op_;
  std::vector<std::size_t> foreach_index_;
  std::vector<std::size_t> foreach_list_sizes_;
  std::map<std::string, std::size_t> unknown_;
  // A walk of more steps than this (a long chain of unrolled reductions) gives up on addresses.
  static constexpr std::size_t kMaxWalkSteps = 4096;
  // GraphLowering.run_node: a Pointwise whose inner function has more ops than this is stored
  // (has_large_inner_fn(threshold=100)), against deep recursion in Inductor's evaluation.
  static constexpr std::size_t kInlineOpcountLimit = 100;
};

}  // namespace fxscope::fusion::detail
