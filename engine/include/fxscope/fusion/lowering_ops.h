#pragma once
// What Inductor's lowering does with particular ops, read off the op and its arguments alone
// (lowering.cpp replays the lowering of a whole graph with them).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/graph/node.h"

namespace fxscope::fusion {

// The ops Inductor lowers straight to one Reduction IR over some dims (composite ops such as
// norms, softmax or pooling are decomposed or lowered otherwise, so their sizes say nothing of a
// reduced size).
bool plain_reduction(std::string_view target);

// The positions of a forward pooling window Inductor lowers as a Pointwise (0 for any other
// window op): avg_pool2d falls back to ATen beyond 25 positions.
std::size_t pool_window_positions(const graph::Node& node);

// Where an indirect load's index tensors are among the arguments of an op of TARGET (index,
// gather, embedding, ...), if it is one.
std::optional<std::size_t> indirect_indices_position(std::string_view target);

// Whether view node ID leaves its input's sizes as they are, so that Inductor's lowering returns
// the input itself and makes no IR node the view could be an origin of: lowering.expand to the
// same sizes, View.create's "pointless views", squeeze of no dim of size one.
bool pointless_view(const graph::Graph& graph, graph::NodeId id);

// Whether a reshape from OLD_SIZES to NEW_SIZES defeats View._dynamic_reshape_indexer, which
// matches each group of sizes as a pure split or a pure merge (a group of 2 x 384 read as
// 12 x 64 is neither), so that View.dynamic_reshape_indexer falls back to indexing through the
// flattened tensor (FloorDiv and ModularIndexing of one flat index).
bool reshape_needs_flat_index(const std::vector<std::int64_t>& old_sizes,
                              const std::vector<std::int64_t>& new_sizes);

// Whether a reshape from OLD_SIZES to NEW_SIZES (each dim flagged where its size is symbolic)
// merges old dims, one of them symbolic, into a new dim of static size: the new index reaches
// them through ModularIndexing whose modulus holds a symbol, which simplify_with_ranges cannot
// drop for an index of static range, so ExternKernel.convert_to_reinterpret_view finds no
// strides for the view (AlexNet with dynamic shapes: 256 x h x w read as 9216).
bool reshape_merges_symbolic_dims(const std::vector<std::int64_t>& old_sizes,
                                  const std::vector<bool>& old_symbolic,
                                  const std::vector<std::int64_t>& new_sizes,
                                  const std::vector<bool>& new_symbolic);

// Whether an op of TARGET is in GraphLowering.run_node's need_fixed_layout: a reused input of it
// is asked for its own strides (a GEMM, a convolution's backward, and without layout
// optimisation a convolution).
bool needs_fixed_layout(std::string_view target, bool layout_opt);

// Whether an op of TARGET is one of Inductor's foreach lowerings (lowering.py's
// register_foreach_pointwise and register_foreach_inplace): a list op each of whose elements is a
// Pointwise of the items at its position in the list arguments. Foreach ops without such a
// lowering (_foreach_norm, the ScalarList overloads) fall back to ATen and are none of them.
bool foreach_pointwise(std::string_view target);

// Whether such an op writes its results into its first list (register_foreach_inplace).
bool foreach_in_place(std::string_view target);

// The number of elements of foreach op NODE: the length of its first list argument.
std::size_t foreach_length(const graph::Node& node);

// What element K of foreach op ID computes from: the item at position K of each list argument,
// and each tensor argument outside a list (one value for every element).
std::vector<graph::NodeId> foreach_element_inputs(const graph::Graph& graph, graph::NodeId id,
                                                  std::size_t k);

// Whether an op of TARGET is a custom operator Inductor has no lowering for: an op of a library
// outside ATen and prims (torch._library.utils.is_builtin) that GraphLowering.call_function makes
// an implicit fallback, constrained by config.custom_op_default_layout_constraint
// (needs_exact_strides) unless the op is tagged otherwise, which the log does not record.
bool custom_op_fallback(std::string_view target);
// Why fxscope's runtime runs none: its body is the program's own Python (torch.library), which
// the log does not hold.
inline constexpr std::string_view kCustomOpNoRuntime =
    "a custom op, whose body is your program's Python code, which the log does not hold: "
    "fxscope's CUDA runtime cannot run it";

// Whether an op of TARGET is one of the composite ops torch.export's training IR keeps (linear,
// conv2d, batch_norm, layer_norm, softmax, flatten, chunk, scaled_dot_product_attention, ...),
// which Dynamo's AOT graphs and the core ATen IR decompose (fusion::core_aten_graph).
bool export_composite_op(std::string_view target);
// Why fxscope's runtime runs none, and how to get a graph it runs.
inline constexpr std::string_view kExportCompositeNoRuntime =
    "a composite op of torch.export's training IR, which fxscope's CUDA runtime does not run: "
    "log the program's core ATen IR (ExportedProgram.run_decompositions()) to re-run it";

// Whether a library fallback of an ATen op of TARGET asks for dense inputs, so that one not in
// memory is copied while the call is lowered: an explicit fallback registered with
// require_dense, require_contiguous or constrain_to_fx_strides (lowering.make_fallback), or, in a
// BACKWARD graph, an op Inductor neither lowers nor lists (GraphLowering.call_function makes it
// an implicit fallback and, for a builtin op without a layout tag, require_contiguous).
bool fallback_requires_dense(std::string_view target, bool backward);

// Whether an op of TARGET is control flow Inductor lowers around subgraphs (lowering.cond ->
// ir.Conditional, lowering.while_loop -> ir.WhileLoop): it realizes its operands, each subgraph
// argument is lowered as a graph of its own (GraphLowering.make_subgraph, its kernels fused
// within it alone), and the op itself launches nothing: the wrapper reads the predicate on the
// host and calls the chosen subgraph's code.
bool runs_subgraphs(std::string_view target);

// Whether an op of TARGET calls a user's @triton.jit kernel (triton_kernel_wrapper_mutation,
// lowered as ir.UserDefinedTritonKernel): one launch of the user's code that fuses with nothing,
// its tensor arguments realized first.
bool user_triton_kernel(std::string_view target);
// Whether an op of TARGET is flex attention's forward or backward, which Inductor lowers as
// Triton templates (kernel/flex/flex_attention.py, flex_attention_backward.py) with the
// score_mod and mask subgraphs inlined: launches of their own whose origins are the views of q,
// k and v the call gathered; the backward first reduces out * grad_out per row (the delta) in a
// kernel of its own.
bool flex_attention_template(std::string_view target);
// Any of the three above: a higher-order op the lowering models (lowering_higher_order.cpp).
bool lowered_higher_order(std::string_view target);
// Why fxscope's runtime runs none: the kernel is the user's Triton code, which the log does not
// hold and NVRTC does not compile; PyTorch's backend runs it.
inline constexpr std::string_view kUserTritonKernelNoRuntime =
    "a user's Triton kernel, which fxscope's CUDA runtime cannot compile: run it with "
    "--backend pytorch";

// Whether NODE (of GRAPH) is a sort Inductor lowers as a Pointwise copy (lowering.sort_stable,
// ir.Sort.create: "Sort with a single element is just a copy"): a GPU sort along a dim of at
// most one element, or a sort of a 0-d tensor (clone(x) and a full of 0). Its values are its
// input at the same coordinates; its indices (to_dtype of the int16 iota, int64) are 0, a
// Pointwise that loads nothing.
bool trivial_sort(const graph::Graph& graph, graph::NodeId id);

// Whether an op of TARGET makes an uninitialized buffer (lowering.empty_strided: a realized
// ComputedBuffer of zero ranges, a NopKernelSchedulerNode that launches nothing).
bool allocates_only(std::string_view target);

// Whether NODE is a scalar the host computes, no tensor: a symbolic size or an operation on
// sizes (its meta a SymInt), or a runtime check of an unbacked size (_assert_scalar,
// sym_constrain_range[_for_size], which have no meta).
bool host_scalar_op(const graph::Node& node);

// Whether an op of TARGET lowers to no IR at all (lowering._assert_scalar returns None; the
// runtime assert is an AssertScalar written in the wrapper, no kernel).
bool lowers_to_nothing(std::string_view target);

// Whether an op of TARGET, though not in the op table, is one fxscope models by name: an
// in-place index_put_ (lowering.index_put_, a Scatter), a runtime check of an unbacked size, and
// the fallbacks its runtime generates kernels for (the fused LSTM cell and its backward, histc,
// transformers' grouped_mm_fallback). Such an op is no "unknown op".
bool modelled_by_name(std::string_view target);

// Whether fxscope models NODE's op: in the op table, a foreach op, a higher-order op it lowers,
// one it models by name, or a scalar the host computes. What it does not model is planned as an
// opaque kernel of its own and noted as an unknown op.
bool modelled_op(const graph::Node& node);

// Whether an op of TARGET that Inductor lowers as a Pointwise over a window is in lowering.py's
// needs_realized_inputs (add_needs_realized_inputs: the pooling ops, their backwards and nearest
// upsampling), so that a reused value it reads gets GraphLowering.run_node's realize_hint.
bool window_needs_realized_inputs(std::string_view target);

}  // namespace fxscope::fusion
