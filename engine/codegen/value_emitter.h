#pragma once
// Emits the CUDA C statements that compute one node of a group at one multi-index: loads of the
// group's input buffers (through their annotated strides), pointwise ops, constants, gathers
// (embedding, index, cat, pad) and view chains, which only rewrite the index. Values are
// computed once per (node, index) within a scope; reductions of the kernel are bound to their
// accumulators, so any index of a reduced row yields the row's value.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::codegen {

// A position in a tensor: one C expression per dimension, and when known, the row-major linear
// index over the tensor's sizes (lets contiguous loads skip the per-dimension arithmetic).
struct Index {
  std::vector<std::string> dims;
  std::string linear;
};

// The C type arithmetic on DTYPE happens in: float for f32/f16/bf16, long long for i64 ...
std::string compute_type(const std::string& dtype);
// The C type of one stored element: float, fx_half, fx_bf16, long long, int, bool ...
std::string storage_type(const std::string& dtype);
// WIDTH stored elements moved as one load or store: "fx_vec<float, 4>" (16 bytes).
std::string vector_type(const std::string& dtype, std::int64_t width);
// A float literal C accepts (1e-05f, -FX_INF).
std::string float_literal(double value);

struct PoolWindow;
// The variables of one pooling window's loops: its position (kh, kw), the input element it reads
// (ih, iw) and whether that is in the image (inside). A fused kernel can nest one window in
// another (a pool of a pool: GoogLeNet's 2x2 pool read by an inception block's 3x3 pool), so
// each window takes names of its own: with shared names the inner `const int ih = ... ih ...`
// would read its own, uninitialised, declaration instead of the outer window's.
struct WindowNames {
  std::string kh = "kh", kw = "kw", ih = "ih", iw = "iw", inside = "inside";
};
// The statement that takes V into a max pooling's running max M and its offset AT (with the
// window's variables N in scope), keeping NaN as PyTorch does; IN_WIDTH is the input's last dim.
std::string pool_update(const std::string& v, const std::string& m, const std::string& at,
                        const PoolWindow& w, std::int64_t in_width, const WindowNames& n = {});

// A tensor's concrete sizes and strides.
struct Shape {
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  std::int64_t numel() const;
  bool contiguous() const;
};
std::optional<Shape> shape_of(const graph::Node& node, const ops::SymbolHints& hints);
// Index text E moved by BY along its dim, written so that moving back undoes it textually: a
// slice_scatter's source read through the slice of the same tensor then reaches the tensor at
// the index its other branch reads, which the value cache shares (Swin's chains of masks nest
// nine deep: without the sharing each level doubled the kernel).
std::string shift_index(const std::string& e, std::int64_t by);
// Row-major delinearisation of LINEAR over SIZES (constants baked in).
Index delinearize(const std::string& linear, const std::vector<std::int64_t>& sizes);
// The position at LINEAR when a kernel walks a tensor of SHAPE in the order its elements lie in
// memory (its dims by stride, largest first), as Inductor orders a kernel's loops by stride: a
// dense transposed output (a weight cast to bf16 and transposed for its GEMM) is then written,
// and inputs of the same layout read, at consecutive addresses by consecutive threads. Row-major
// (delinearize) where SHAPE is contiguous or not dense; only then is the linear index known.
Index delinearize_in_memory_order(const std::string& linear, const Shape& shape);
// The row-major position of IDX in a tensor of SIZES: its linear index when it has one.
std::string linearize(const Index& idx, const std::vector<std::int64_t>& sizes);

// Inductor's unroll_reductions_threshold: Reduction.create lowers a reduction over fewer
// elements as a Pointwise, so a kernel computes it inline wherever it reads it.
inline constexpr std::int64_t kUnrolledReductionLimit = 8;

class ValueEmitter {
 public:
  // A C expression and its C type: an argument of an op, broadcast to the op's index.
  struct Operand {
    std::string expr;
    std::string type;
  };

  ValueEmitter(const graph::Graph& graph, const std::set<graph::NodeId>& members,
               const ops::SymbolHints& hints, std::string where, std::uint64_t run_seed = 0);

  // The C expression (usually a variable) holding NODE at IDX, in NODE's compute type.
  Result<std::string> value(graph::NodeId node, const Index& idx);
  // NODE (a reduction of the kernel, or a getitem of one) is the variable NAME from now on.
  void bind(graph::NodeId node, std::string name) { bound_[node] = std::move(name); }
  // Lets reduction NODE, however many elements it combines, be computed where it is read as a
  // loop of its own over them (a reduction whose values are the elements of the kernel's rows).
  void loop_where_read(graph::NodeId node) { looped_.insert(node); }
  // The element offset of IDX in the buffer of param NODE (its annotated strides).
  Result<std::string> offset(graph::NodeId node, const Index& idx);

  // Statements go to the current body at the current indentation.
  void line(const std::string& text);
  void open(const std::string& head);  // "for (...) {" and one level deeper
  void close();                        // "}" and the scope's values forgotten
  std::string take_body();
  void set_indent(int indent) { indent_ = indent; }

  // The buffers the emitted code loaded, in first-use order (the kernel's read params).
  const std::vector<graph::NodeId>& loaded() const { return loaded_; }
  // The C name of param NODE's pointer.
  std::string param_name(graph::NodeId node) const;
  // For code that indexes NODE's memory itself (a layout copy's 16-byte loads): its param, read
  // from now on, when NODE is a buffer of its own (not a view, not computed here) laid out
  // contiguously, which the runtime allocates 256-byte aligned; nullopt otherwise.
  std::optional<std::string> contiguous_buffer(graph::NodeId node);
  const ops::SymbolHints& hints() const { return hints_; }
  // Max pooling whose window the caller computed (the staged kernel, over shared memory): POOL's
  // value and offset at IDX are the variables MAX and AT within the current scope, so that the
  // getitems and whatever reads them at IDX use them instead of reading the window again.
  void set_pool_result(graph::NodeId pool, const Index& idx, const std::string& max,
                       const std::string& at);
  const graph::Graph& graph() const { return g_; }
  std::uint64_t run_seed() const { return run_seed_; }

  // Vectorised pointwise kernels: while a lane is set, a contiguous f32, f16 or bf16 buffer of
  // NUMEL elements read at exactly LINEAR comes from element LANE of a vector (fx_vec) loaded
  // once per thread.
  void set_vector_lane(std::string linear, int lane, std::int64_t numel);
  // The buffers read as vectors, with the variable each was loaded into.
  const std::vector<std::pair<graph::NodeId, std::string>>& vector_loads() const {
    return vector_loads_;
  }
  // Whether, while lanes were set, some smaller buffer was read element by element at more than
  // one offset a thread: a broadcast operand whose index differs between lanes (a per-channel scale
  // over 7x7 planes), read and computed on once a lane instead of once a vector.
  bool lanes_read_apart() const {
    for (const auto& [node, offsets] : lane_load_offsets_) {
      if (offsets.size() > 1) return true;
    }
    return false;
  }

  // Persistent reductions: while a row cache is open, a load or gather a pass over the row
  // computes at an index that depends on POSITION (the element's place in the row), two scopes
  // below the one open now (the unrolled loop over a thread's ITEMS elements, then its guard), is
  // also kept in slot SLOT of a register array, and later passes read it from there instead of
  // memory, while the arrays take at most REGISTERS registers a thread.
  void open_row_cache(std::string slot, std::string position, int items, int registers);
  // The last pass: it still reads the arrays but adds none (nothing after it would read them).
  void freeze_row_cache() { row_cache_room_ = 0; }
  // While on, each value the row cache would keep but does not hold yet is noted with its index:
  // a rehearsal of a later pass on a copy of this emitter lists the loads that pass will make, so
  // the first pass can make them (and cache them) before the reduction rather than after it.
  void note_row_loads(bool on) { noting_row_loads_ = on; }
  const std::vector<std::pair<graph::NodeId, Index>>& noted_row_loads() const {
    return noted_row_loads_;
  }
  // The declarations of the arrays used, to be placed before the first pass; closes the cache.
  std::string close_row_cache();
  // Where the body ends now, and text inserted at such a position (the row cache's arrays).
  std::size_t body_size() const { return body_.size(); }
  void insert_body(std::size_t at, const std::string& text) { body_.insert(at, text); }

 private:
  Result<std::string> compute(graph::NodeId node, const Index& idx);
  Result<std::string> load(graph::NodeId node, const Index& idx);
  Result<std::string> view_value(graph::NodeId node, const Index& idx);
  Result<std::string> gather_value(graph::NodeId node, const Index& idx);
  Result<std::string> scatter_value(graph::NodeId node, const Index& idx);
  Result<std::string> as_strided_scatter_value(graph::NodeId node, const Index& idx);
  // N's value: OTHERWISE, or where the C condition INSIDE holds, SOURCE at AT (read only there).
  Result<std::string> value_where(const graph::Node& n, const std::string& otherwise,
                                  const std::string& inside, graph::NodeId source, const Index& at);
  Result<std::string> getitem_value(graph::NodeId node, const Index& idx);
  Result<std::string> pool_value(graph::NodeId pool, std::int64_t output, const Index& idx);
  Result<std::string> avg_pool_value(graph::NodeId node, const Index& idx);
  // Max pooling's backward (aten.max_pool2d_with_indices_backward) and Inductor's offsets turned
  // into its flat indices (prims._low_memory_max_pool_offsets_to_indices): gather_ops.cpp.
  Result<std::string> max_pool_backward_value(graph::NodeId node, const Index& idx);
  Result<std::string> pool_offsets_to_indices_value(graph::NodeId node, const Index& idx);
  // Adaptive average pooling to more than 1x1 (ops/adaptive_pool.h): gather_ops.cpp.
  Result<std::string> adaptive_pool_value(graph::NodeId node, const Index& idx);
  Index open_plane_loops(const Index& idx, const std::string (&bounds)[2][2], const std::string& h,
                         const std::string& w);
  static std::string pool_key(graph::NodeId pool, std::int64_t output, const Index& idx);
  struct PoolInput {
    graph::NodeId x;
    Shape shape;
  };
  Result<PoolInput> pool_input(graph::NodeId pool, const Index& idx);
  Result<std::string> window_value(graph::NodeId x, const Index& idx,
                                   const std::vector<std::int64_t>& in_sizes, const WindowNames& n);
  // Fresh names for a window's loop variables (WindowNames).
  WindowNames window_names();
  Result<std::string> pointwise_value(graph::NodeId node, const Index& idx);
  // A reduction of the kernel over fewer than kUnrolledReductionLimit elements that no
  // accumulator holds: its elements combined inline (unrolled_reduction.cpp).
  Result<std::string> unrolled_reduction(graph::NodeId node, const Index& idx);
  Result<Operand> operand(graph::NodeId consumer, const graph::Argument& arg, const Index& idx);
  // The index of INPUT, an operand of CONSUMER, that CONSUMER reads at IDX (broadcasting).
  Result<Index> operand_index(graph::NodeId consumer, graph::NodeId input, const Index& idx);
  // The square root node a float reciprocal reads, when it is computed in this kernel (so the
  // pair can be one reciprocal square root).
  std::optional<graph::NodeId> fused_sqrt_operand(const graph::Node& reciprocal) const;
  std::string fresh(const std::string& stem);
  bool uses_emitted_names(const Index& idx) const;  // IDX names a variable fresh() made
  void note_loaded(graph::NodeId node);
  std::string declare(const std::string& type, const std::string& stem, const std::string& expr);
  Error fail(graph::NodeId node, const std::string& what) const;
  bool is_leaf(graph::NodeId node) const;
  // The bias of NODE, a convolution the library ran, when this kernel computes that bias: the
  // kernel is the convolution's bias epilogue and reads the output without it.
  std::optional<graph::NodeId> epilogue_bias(graph::NodeId node) const;
  bool row_cacheable(graph::NodeId node, const std::string& dims) const;

  const graph::Graph& g_;
  const std::set<graph::NodeId>& members_;
  const ops::SymbolHints& hints_;
  std::string where_;
  std::uint64_t run_seed_ = 0;
  std::map<graph::NodeId, std::string> bound_;
  std::set<graph::NodeId> looped_;  // reductions computed as a loop where read
  std::map<graph::NodeId, std::set<std::string>> lane_load_offsets_;
  std::vector<std::string> named_;  // every name fresh() gave, in order
  std::vector<std::map<std::string, std::string>> scopes_{1};
  std::vector<graph::NodeId> loaded_;
  std::string body_;
  int indent_ = 1;
  int counter_ = 0;
  std::string vector_linear_;
  int vector_lane_ = -1;
  std::int64_t vector_numel_ = 0;
  std::vector<std::pair<graph::NodeId, std::string>> vector_loads_;
  std::string row_cache_slot_;  // empty: no row cache open
  int row_cache_items_ = 0;
  std::string row_cache_position_;
  int row_cache_room_ = 0;
  std::size_t row_cache_depth_ = 0;
  int row_cache_indent_ = 0;
  std::map<std::string, std::string> row_cache_;  // value key (node@dims) -> its array
  std::string row_cache_decls_;
  bool noting_row_loads_ = false;
  std::vector<std::pair<graph::NodeId, Index>> noted_row_loads_;
};

}  // namespace fxscope::codegen
