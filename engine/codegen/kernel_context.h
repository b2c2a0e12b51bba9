#pragma once
// What the kernel builders share: the group, the nodes the kernel computes, the buffers it writes,
// and the assembly of a kernel's source from its body and params.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "value_emitter.h"

namespace fxscope::codegen {

// The SMs of the device launch shapes are chosen for (an H200): grids and teams are sized to fill
// it, past which grid-stride loops take the rest.
inline constexpr std::int64_t kSMs = 132;
// In the summary of the one channels-last copy form whose block is its launch config's (the
// few-channel form): candidates() offers it block sizes, the tiled forms none.
inline constexpr const char* kCopyByPositions = ", a thread ";
// In the summary of a max pooling staged in shared memory: candidates() offers it rows a block.
inline constexpr const char* kStagedRows = " staged input rows";

struct KernelContext {
  const graph::Graph& graph;
  const fusion::KernelGroup& group;
  const ops::SymbolHints& hints;
  LaunchConfig config;
  bool default_config = true;  // no explicit config: the builder picks one
  std::string where;           // "group 7 triton_poi_fused_add_3": prefixes every error
  std::string entry;           // the kernel's C name
  std::set<graph::NodeId>
      members;  // nodes the kernel computes (reductions read as inputs excluded)
  std::vector<graph::NodeId> writes;  // nodes whose buffers it stores (tuples: their getitems)
  bool clusters = false;              // CodegenOptions::clusters
  std::uint64_t run_seed = 0;         // CodegenOptions::run_seed
};

// Why the kernel of the one op N cannot be generated: "WHERE: aten.op WHY".
Error op_error(const KernelContext& ctx, const graph::Node& n, const std::string& why);

Result<GeneratedKernel> pointwise_kernel(const KernelContext& ctx);
// A max pooling group staged in shared memory (R output rows a block: the config's
// rows_per_block, 4 by default); nullopt when the group is not one (it writes something other
// than the pool's outputs), or the config asks for one row, or the rows would not fit.
std::optional<Result<GeneratedKernel>> staged_pool_kernel(const KernelContext& ctx);
Result<GeneratedKernel> reduction_kernel(const KernelContext& ctx);
Result<GeneratedKernel> scan_kernel(const KernelContext& ctx);
// Groups that write no node's buffer: Inductor's copies of an input into the layout a library
// kernel wants (channels-last for a convolution, an aligned attention mask).
Result<GeneratedKernel> copy_kernel(const KernelContext& ctx);
// The copies of cat parts into their slices of several cats (a group that writes no node's whole
// buffer); nullopt when the group's members hold no cat with a part it reads or computes.
std::optional<Result<GeneratedKernel>> cat_copy_kernel(const KernelContext& ctx);
// Eager softmax, log-softmax and layer norm: one kernel per call, as PyTorch runs them.
bool is_composite(const graph::Node& node);
Result<GeneratedKernel> composite_kernel(const KernelContext& ctx);

// NAME with every character C does not allow in an identifier made '_'.
std::string c_name(const std::string& name);

// index_put / index_put_ (NODE, a member of the group): a scatter over the indexed shape into
// NODE's buffer, which an eager call first fills with self. COPY_SELF (or the group's note
// kIndexPutSelfNote): only self copied into NODE's buffer.
Result<GeneratedKernel> index_put_kernel(const KernelContext& ctx, graph::NodeId node,
                                         bool copy_self = false);

// ATen's fused LSTM cell forward or backward (NODE, the group's one node): one generated launch
// storing the getitems of its tuple (lstm_cell_kernel.cpp).
bool is_lstm_cell(const graph::Node& node);
Result<GeneratedKernel> lstm_cell_kernel(const KernelContext& ctx, graph::NodeId node);
// aten.sort / aten.topk (NODE): a block per row, sorted in shared memory (sort_kernel.cpp).
bool is_sort_or_topk(const graph::Node& node);
Result<GeneratedKernel> sort_kernel(const KernelContext& ctx, graph::NodeId node);
// aten.histc (NODE) with its range given: one block counting by atomic adds (histc_kernel.cpp).
bool is_histc(const graph::Node& node);
Result<GeneratedKernel> histc_kernel(const KernelContext& ctx, graph::NodeId node);
// transformers' grouped_mm_fallback (NODE): a thread per output element, its row's group found
// from the offsets (grouped_mm_kernel.cpp).
bool is_grouped_mm(const graph::Node& node);
Result<GeneratedKernel> grouped_mm_kernel(const KernelContext& ctx, graph::NodeId node);
// aten.nonzero (NODE): one block, a prefix sum of chunks' counts (nonzero_kernel.cpp).
bool is_nonzero(const graph::Node& node);
Result<GeneratedKernel> nonzero_kernel(const KernelContext& ctx, graph::NodeId node);
// aten.scatter (NODE) of a tensor or a value: one block, self copied first (scatter_kernel.cpp).
// A planned Scatter (fusion's dim-scatter lowering) runs in two launches: PART self_copy
// fills the output with self, PART scatter stores the elements, its source computed inline.
enum class ScatterPart : std::uint8_t { both, self_copy, scatter };
Result<GeneratedKernel> scatter_kernel(const KernelContext& ctx, graph::NodeId node,
                                       ScatterPart part = ScatterPart::both);

// An index_put as a store (Inductor's ir.Scatter): it iterates over the indexed shape (self's
// dims before the first index tensor, the index tensors broadcast together, self's dims after
// them), and stores each value, broadcast to that shape from the right, at the indexed address
// of its output; negative indices wrap. Accumulating stores are atomic adds.
struct ScatterShape {
  graph::NodeId node = 0;
  std::vector<std::int64_t> indexed;  // the iteration space: the values' shape once broadcast
  std::vector<std::int64_t> out;      // the output's (self's) sizes
  graph::NodeId values = 0;
  std::vector<std::int64_t> values_sizes;
  std::vector<graph::NodeId> indices;  // the index tensors, adjacent from dim FIRST of self
  std::vector<std::vector<std::int64_t>> index_sizes;
  std::size_t first = 0;
  std::size_t bcast_rank = 0;  // the rank the index tensors broadcast to
  bool accumulate = false;
  std::int64_t numel() const;
};
Result<ScatterShape> scatter_shape(const graph::Graph& graph, graph::NodeId node,
                                   const ops::SymbolHints& hints);
// The statements that store one value of scatter S, the one at AT (an index into S.indexed).
std::optional<Error> emit_scatter(ValueEmitter& emitter, const ScatterShape& s, const Index& at);
// The atomic add of VALUE (float) to element OFF of PTR, a buffer of DTYPE (16-bit types through
// a compare-and-swap of the 32-bit word that holds them).
std::string atomic_add(const std::string& dtype, const std::string& ptr, const std::string& off,
                       const std::string& value);

// The statement that stores VALUE (in NODE's compute type) into NODE's buffer at IDX.
Result<std::string> store_statement(ValueEmitter& emitter, graph::NodeId node, const Index& idx,
                                    const std::string& value);
// "int" when every offset the kernel forms fits 31 bits, else "fx_i64" (the prelude's long long,
// one word so that fx_i64(x) casts).
std::string index_type(const KernelContext& ctx, std::int64_t iteration_numel);
// The loads of the vectors the emitter's lanes read, from its FIRST noted one on: each buffer's
// WIDTH elements at vector index INDEX, a line each, indented INDENT spaces.
std::string vector_load_lines(const KernelContext& ctx, const ValueEmitter& emitter,
                              std::size_t first, int width, const std::string& index, int indent);
// The complete source: header comment, prelude, signature with the emitter's loads, the writes
// and the extra params, then BODY. Fills kernel.params and kernel.source.
void assemble(const KernelContext& ctx, const ValueEmitter& emitter, const std::string& body,
              const std::string& header, const std::vector<KernelParam>& scratch,
              GeneratedKernel& kernel);
// The kernel whose body the emitter holds, launched as CONFIG over GRID blocks, with SUMMARY as
// both its summary and its source's header: what every builder whose header is its summary ends
// with.
GeneratedKernel finish_kernel(const KernelContext& ctx, ValueEmitter& emitter,
                              const LaunchConfig& config, std::int64_t grid, std::string summary,
                              const std::vector<KernelParam>& scratch = {}, int cluster = 1);
// Blocks for ROWS rows at CONFIG's rows per block, at most 32 per SM of an H200 (132): past that
// the row loop strides over the rest.
std::int64_t row_grid(std::int64_t rows, const LaunchConfig& config);

}  // namespace fxscope::codegen
