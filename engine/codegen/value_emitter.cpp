// Emission of node values: loads, views (index rewrites) and CSE scopes. Pointwise ops and
// gathers live in pointwise_ops.cpp and gather_ops.cpp.

#include "value_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "arg_helpers.h"
#include "fxscope/core/text.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/ops/adaptive_pool.h"
#include "fxscope/ops/op_registry.h"
#include "pool_window.h"
#include "reduction_shape.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;

// Index text longer than this is bound to a variable before it is repeated.
constexpr std::size_t kLongIndex = 96;

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string sanitize(const std::string& name) {
  std::string out = "v_";
  for (const char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// Maps IDX of OUT to IN when the two differ only by dimensions of size 1 (unsqueeze, squeeze and
// the views that do the same): the other dimensions keep their index, the size-1 ones read 0.
std::optional<Index> match_unit_dims(const Index& idx, const std::vector<std::int64_t>& out,
                                     const std::vector<std::int64_t>& in) {
  Index mapped;
  mapped.linear = idx.linear;
  std::size_t o = 0;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) {
      mapped.dims.push_back("0");
      if (o < out.size() && out[o] == 1) ++o;
      continue;
    }
    while (o < out.size() && out[o] == 1) ++o;
    if (o >= out.size() || out[o] != in[d]) return std::nullopt;
    mapped.dims.push_back(idx.dims[o++]);
  }
  while (o < out.size() && out[o] == 1) ++o;
  if (o != out.size()) return std::nullopt;
  return mapped;
}

// A view node passed as a param may start at any element offset: never read it as float4.
bool is_view_op(const graph::Node& n) {
  if (!n.is_op()) return false;
  const ops::Lowering l = ops::classify(n.target).lowering;
  return l == ops::Lowering::view || l == ops::Lowering::getitem;
}

}  // namespace

std::string compute_type(const std::string& dtype) {
  if (dtype == "f64") return "double";
  if (dtype == "i64") return "long long";
  if (dtype == "i32" || dtype == "i16" || dtype == "i8" || dtype == "u8") return "int";
  if (dtype == "b8") return "bool";
  return "float";
}

std::string vector_type(const std::string& dtype, std::int64_t width) {
  return "fx_vec<" + storage_type(dtype) + ", " + std::to_string(width) + ">";
}

std::string storage_type(const std::string& dtype) {
  if (dtype == "f16") return "fx_half";
  if (dtype == "bf16") return "fx_bf16";
  if (dtype == "i16") return "short";
  if (dtype == "i8") return "signed char";
  if (dtype == "u8") return "unsigned char";
  return compute_type(dtype);
}

std::string float_literal(double value) {
  if (std::isnan(value)) return "FX_NAN";
  if (std::isinf(value)) return value > 0 ? "FX_INF" : "(-FX_INF)";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  std::string text = buf;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return "(" + text + "f)";
}

std::int64_t Shape::numel() const {
  std::int64_t n = 1;
  for (const std::int64_t s : sizes) n *= s;
  return n;
}

bool Shape::contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

std::optional<Shape> shape_of(const graph::Node& node, const ops::SymbolHints& hints) {
  if (!node.meta || node.meta->is_sym_scalar()) return std::nullopt;
  Shape s;
  for (const graph::Dim& d : node.meta->sizes) s.sizes.push_back(ops::eval_dim(d, hints));
  for (const graph::Dim& d : node.meta->strides) s.strides.push_back(ops::eval_dim(d, hints));
  if (s.strides.size() != s.sizes.size()) {
    // Unannotated strides: the tensor is taken as contiguous.
    s.strides.assign(s.sizes.size(), 1);
    for (std::size_t d = s.sizes.size(); d-- > 1;) s.strides[d - 1] = s.strides[d] * s.sizes[d];
  }
  return s;
}

std::string shift_index(const std::string& e, std::int64_t by) {
  if (by == 0) return e;
  if (by < 0) return "(" + e + " - " + std::to_string(-by) + ")";
  const std::string tail = " - " + std::to_string(by) + ")";
  if (e.size() > tail.size() + 1 && e.front() == '(' && e.ends_with(tail)) {
    // Undo only a shift of the whole text: its first parenthesis closes at its last character.
    int depth = 0;
    std::size_t close = 0;
    for (std::size_t k = 0; k < e.size(); ++k) {
      depth += e[k] == '(' ? 1 : e[k] == ')' ? -1 : 0;
      if (depth == 0) {
        close = k;
        break;
      }
    }
    if (close == e.size() - 1) return e.substr(1, e.size() - tail.size() - 1);
  }
  return std::to_string(by) + " + " + e;
}

std::string linearize(const Index& idx, const std::vector<std::int64_t>& sizes) {
  if (!idx.linear.empty()) return idx.linear;
  std::string lin;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    lin = lin.empty() ? idx.dims[d]
                      : "(" + lin + ") * " + std::to_string(sizes[d]) + " + " + idx.dims[d];
  }
  return lin.empty() ? "0" : lin;
}

Index delinearize(const std::string& linear, const std::vector<std::int64_t>& sizes) {
  // dims[d] = (linear / (product of the sizes after d)) % sizes[d]; the outermost needs no %.
  Index idx;
  idx.linear = linear;
  std::int64_t inner = 1;
  idx.dims.resize(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) {
      idx.dims[d] = "0";
      continue;
    }
    std::string e = inner == 1 ? linear : "(" + linear + ") / " + std::to_string(inner);
    bool outer = true;
    for (std::size_t k = 0; k < d; ++k) outer = outer && sizes[k] == 1;
    if (!outer) e = "(" + e + ") % " + std::to_string(sizes[d]);
    idx.dims[d] = e;
    inner *= sizes[d];
  }
  return idx;
}

Index delinearize_in_memory_order(const std::string& linear, const Shape& shape) {
  const std::size_t rank = shape.sizes.size();
  if (rank < 2 || shape.strides.size() != rank || shape.contiguous()) {
    return delinearize(linear, shape.sizes);
  }
  // Dims of more than one element, outermost in memory first (a tie keeps the logical order).
  std::vector<std::size_t> order;
  for (std::size_t d = 0; d < rank; ++d) {
    if (shape.sizes[d] != 1) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return shape.strides[a] > shape.strides[b];
  });
  // Dense: each dim's stride is the product of the sizes inside it in memory (no gap, no
  // overlap); a broadcast (stride 0) or strided view keeps the row-major walk.
  std::int64_t expected = 1;
  for (std::size_t k = order.size(); k-- > 0;) {
    if (shape.strides[order[k]] != expected) return delinearize(linear, shape.sizes);
    expected *= shape.sizes[order[k]];
  }
  std::vector<std::int64_t> walked;
  for (const std::size_t d : order) walked.push_back(shape.sizes[d]);
  const Index in_memory = delinearize(linear, walked);
  Index idx;
  idx.dims.assign(rank, "0");
  for (std::size_t k = 0; k < order.size(); ++k) idx.dims[order[k]] = in_memory.dims[k];
  return idx;  // no row-major linear index: the walk is another order
}

ValueEmitter::ValueEmitter(const graph::Graph& graph, const std::set<NodeId>& members,
                           const ops::SymbolHints& hints, std::string where, std::uint64_t run_seed)
    : g_(graph), members_(members), hints_(hints), where_(std::move(where)), run_seed_(run_seed) {}

Error ValueEmitter::fail(NodeId node, const std::string& what) const {
  return make_error(where_ + ": " + std::string(ops::op_key(g_.node(node).target)) + " (" +
                    g_.node(node).name + ") " + what);
}

std::string ValueEmitter::param_name(NodeId node) const {
  return "p_" + sanitize(g_.node(node).name).substr(2);
}

void ValueEmitter::line(const std::string& text) {
  body_ += std::string(static_cast<std::size_t>(indent_) * 2, ' ') + text + "\n";
}

void ValueEmitter::open(const std::string& head) {
  line(head);
  ++indent_;
  scopes_.emplace_back();
}

void ValueEmitter::close() {
  --indent_;
  scopes_.pop_back();
  line("}");
}

std::string ValueEmitter::take_body() {
  std::string out;
  out.swap(body_);
  return out;
}

std::string ValueEmitter::fresh(const std::string& stem) {
  std::string name = stem + "_" + std::to_string(counter_++);
  named_.push_back(name);
  return name;
}

bool ValueEmitter::uses_emitted_names(const Index& idx) const {
  const std::string text = join(idx.dims, ",") + ";" + idx.linear;
  return std::any_of(named_.begin(), named_.end(),
                     [&](const std::string& n) { return text.find(n) != std::string::npos; });
}

std::string ValueEmitter::declare(const std::string& type, const std::string& stem,
                                  const std::string& expr) {
  const std::string name = fresh(sanitize(stem));
  line("const " + type + " " + name + " = " + expr + ";");
  return name;
}

std::optional<NodeId> ValueEmitter::epilogue_bias(NodeId node) const {
  const graph::Node& n = g_.node(node);
  if (members_.count(node) || !n.is_op() || ops::op_base_name(n.target) != "convolution" ||
      n.args.size() < 3 || !n.args[2].is_node() || !members_.count(n.args[2].as_node())) {
    return std::nullopt;
  }
  return n.args[2].as_node();
}

bool ValueEmitter::is_leaf(NodeId node) const {
  const graph::Node& n = g_.node(node);
  if (!members_.count(node)) {
    // A getitem of a tuple the kernel computes (pooling) is computed, not loaded.
    if (ops::op_key(n.target) == "operator.getitem" && !n.args.empty() && n.args[0].is_node()) {
      return !members_.count(n.args[0].as_node());
    }
    // A view that is no kernel's origin (an expand to its own sizes) owns no buffer: read it
    // through its input, as Inductor's kernels index the input.
    if (n.is_op() && ops::classify(n.target).lowering == ops::Lowering::view && !n.args.empty() &&
        n.args[0].is_node() && n.meta && g_.node(n.args[0].as_node()).meta &&
        n.meta->sizes == g_.node(n.args[0].as_node()).meta->sizes) {
      return false;
    }
    return true;
  }
  return !n.is_op();
}

Result<std::string> ValueEmitter::value(NodeId node, const Index& idx) {
  if (const auto it = bound_.find(node); it != bound_.end()) return it->second;
  const graph::Node& n = g_.node(node);
  if (n.is_op() && ops::op_base_name(n.target) == "_local_scalar_dense" && !n.args.empty() &&
      n.args[0].is_node()) {
    // `.item()` of a one-element tensor (an epsilon kept as a buffer): its value is on the
    // device, read where it is used, as Inductor's kernels load it; no symbol hint holds it.
    const graph::Node& t = g_.node(n.args[0].as_node());
    Index at;
    at.dims.assign(t.meta ? t.meta->sizes.size() : 0, "0");
    return value(n.args[0].as_node(), at);
  }
  if (n.meta && n.meta->is_sym_scalar()) {
    return "(" + std::to_string(ops::eval_dim(graph::Dim::symbolic(n.meta->sym), hints_)) + "LL)";
  }
  const std::string key = std::to_string(node) + "@" + join(idx.dims, ",");
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (const auto it = s->find(key); it != s->end()) return it->second;
  }
  const bool cached = row_cacheable(node, join(idx.dims, ","));
  if (cached) {
    if (const auto it = row_cache_.find(key); it != row_cache_.end()) {
      return it->second + "[" + row_cache_slot_ + "]";
    }
    // Only loads at an index of the loop's own variables: a gather's index names a value the
    // rehearsal loaded under a name of its own (llama's embedding read the token id as
    // v_arg0_1_2), which the first pass never declares; such a load is made where it is needed.
    if (noting_row_loads_ && !uses_emitted_names(idx)) noted_row_loads_.emplace_back(node, idx);
  }
  auto computed = compute(node, idx);
  if (!computed) return computed;
  scopes_.back()[key] = *computed;
  if (cached && row_cache_room_ >= row_cache_items_) {
    row_cache_room_ -= row_cache_items_;
    const std::string array = fresh("row");
    const std::string type = n.meta ? compute_type(n.meta->dtype) : "float";
    row_cache_decls_ += type + " " + array + "[" + std::to_string(row_cache_items_) + "];  // " +
                        n.name + ": the row's elements, loaded once\n";
    row_cache_[key] = array;
    line(array + "[" + row_cache_slot_ + "] = " + *computed + ";");
  }
  return computed;
}

Result<std::string> ValueEmitter::compute(NodeId node, const Index& idx) {
  if (const auto bias = epilogue_bias(node)) {
    // Inductor ran the convolution without its bias and adds it here: the bias is computed in
    // this kernel (a cast of the parameter to the convolution's dtype), after the library call.
    if (idx.dims.size() < 2) return fail(node, "is a convolution output indexed without channels");
    auto raw = load(node, idx);
    if (!raw) return raw;
    auto b = value(*bias, Index{{idx.dims[1]}, ""});
    if (!b) return b;
    return "(" + *raw + " + " + *b + ")";
  }
  if (is_leaf(node)) return load(node, idx);
  const graph::Node& n = g_.node(node);
  const ops::OpInfo info = ops::classify(n.target);
  if (info.lowering == ops::Lowering::view || info.lowering == ops::Lowering::getitem) {
    return view_value(node, idx);
  }
  if (info.op_class == ops::OpClass::injective || info.lowering == ops::Lowering::window) {
    return gather_value(node, idx);
  }
  if (info.lowering == ops::Lowering::pointwise) return pointwise_value(node, idx);
  if (ops::adaptive_pool_windowed(n)) return adaptive_pool_value(node, idx);
  if (is_reduction(n)) return unrolled_reduction(node, idx);
  return fail(node, "has no CUDA lowering inside a fused kernel (" +
                        std::string(ops::to_string(info.lowering)) + ")");
}

Result<std::string> ValueEmitter::offset(NodeId node, const Index& idx) {
  const auto shape = shape_of(g_.node(node), hints_);
  if (!shape) return fail(node, "has no tensor annotation to index its buffer with");
  if (shape->sizes.size() != idx.dims.size()) {
    return fail(node, "indexed with " + std::to_string(idx.dims.size()) + " dims, has " +
                          std::to_string(shape->sizes.size()));
  }
  if (!idx.linear.empty() && shape->contiguous()) return idx.linear;
  std::vector<std::string> terms;
  for (std::size_t d = 0; d < shape->sizes.size(); ++d) {
    if (shape->sizes[d] == 1 || shape->strides[d] == 0 || idx.dims[d] == "0") continue;
    terms.push_back(shape->strides[d] == 1
                        ? "(" + idx.dims[d] + ")"
                        : "(" + idx.dims[d] + ") * " + std::to_string(shape->strides[d]));
  }
  return terms.empty() ? std::string("0") : join(terms, " + ");
}

std::optional<std::string> ValueEmitter::contiguous_buffer(NodeId node) {
  const graph::Node& n = g_.node(node);
  if (!n.meta || members_.count(node) || is_view_op(n)) return std::nullopt;
  const auto shape = shape_of(n, hints_);
  if (!shape || !shape->contiguous()) return std::nullopt;
  note_loaded(node);
  return param_name(node);
}

void ValueEmitter::note_loaded(NodeId node) {
  for (const NodeId l : loaded_) {
    if (l == node) return;
  }
  loaded_.push_back(node);
}

void ValueEmitter::set_vector_lane(std::string linear, int lane, std::int64_t numel) {
  vector_linear_ = std::move(linear);
  vector_lane_ = lane;
  vector_numel_ = numel;
}

Result<std::string> ValueEmitter::load(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (!n.meta) return fail(node, "is read as a buffer but has no tensor annotation");
  const std::string& type = n.meta->dtype;
  const bool vector_type = type == "f32" || type == "f16" || type == "bf16";
  if (vector_lane_ >= 0 && idx.linear == vector_linear_ && vector_type && !is_view_op(n)) {
    const auto shape = shape_of(n, hints_);
    if (shape && shape->contiguous() && shape->numel() == vector_numel_) {
      std::string var;
      for (const auto& [id, name] : vector_loads_) {
        if (id == node) var = name;
      }
      if (var.empty()) {
        var = fresh(sanitize(n.name + "_vec"));
        vector_loads_.emplace_back(node, var);
        note_loaded(node);
      }
      const std::string lane = var + ".v[" + std::to_string(vector_lane_) + "]";
      if (type == "f16") return "fx_h2f(" + lane + ")";
      if (type == "bf16") return "fx_b2f(" + lane + ")";
      return lane;
    }
  }
  auto off = offset(node, idx);
  if (!off) return off.error();
  note_loaded(node);
  if (vector_lane_ >= 0) {
    // Only broadcast operands: a full-size buffer read out of order is one load an element in
    // either form.
    const auto shape = shape_of(n, hints_);
    if (shape && shape->numel() < vector_numel_) lane_load_offsets_[node].insert(*off);
  }
  const std::string& dtype = n.meta->dtype;
  std::string expr = param_name(node) + "[" + *off + "]";
  if (dtype == "f16") expr = "fx_h2f(" + expr + ")";
  if (dtype == "bf16") expr = "fx_b2f(" + expr + ")";
  return declare(compute_type(dtype), n.name, expr);
}

bool ValueEmitter::row_cacheable(NodeId node, const std::string& dims) const {
  // Only values every thread of the pass computes (not those under a gather's condition): a later
  // pass may ask for the element where the first one did not compute it. Only loads and gathers:
  // pointwise math is cheaper to redo than to hold. Only elements of the row: a per-row value
  // (an embedding's token id) is one load, not a register per element.
  if (row_cache_slot_.empty() || scopes_.size() != row_cache_depth_) return false;
  const graph::Node& n = g_.node(node);
  const ops::OpInfo info = ops::classify(n.target);
  const bool loads = is_leaf(node) || info.op_class == ops::OpClass::injective ||
                     info.lowering == ops::Lowering::window;
  if (!loads || info.lowering == ops::Lowering::view || info.lowering == ops::Lowering::getitem) {
    return false;
  }
  return text::contains_identifier(dims, row_cache_position_);
}

void ValueEmitter::open_row_cache(std::string slot, std::string position, int items,
                                  int registers) {
  row_cache_slot_ = std::move(slot);
  row_cache_position_ = std::move(position);
  row_cache_items_ = items;
  row_cache_room_ = registers;
  row_cache_depth_ = scopes_.size() + 2;  // the unrolled loop over the items, then its guard
  row_cache_indent_ = indent_;
  row_cache_.clear();
  row_cache_decls_.clear();
}

std::string ValueEmitter::close_row_cache() {
  row_cache_slot_.clear();
  row_cache_.clear();
  std::string decls;
  std::size_t start = 0;
  const std::string pad(static_cast<std::size_t>(row_cache_indent_) * 2, ' ');
  for (std::size_t end; (end = row_cache_decls_.find('\n', start)) != std::string::npos;
       start = end + 1) {
    decls += pad + row_cache_decls_.substr(start, end - start + 1);
  }
  row_cache_decls_.clear();
  return decls;
}

Result<std::string> ValueEmitter::view_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (n.args.empty() || !n.args[0].is_node()) return fail(node, "has no input tensor");
  const NodeId input = n.args[0].as_node();
  const std::string base(ops::op_base_name(n.target));
  if (base == "getitem") return getitem_value(node, idx);
  const auto out = shape_of(n, hints_);
  const auto in = shape_of(g_.node(input), hints_);
  if (!out || !in) return fail(node, "is a view without tensor annotations");
  if (out->sizes.size() != idx.dims.size()) return fail(node, "indexed with the wrong rank");
  Index mapped;
  // A permute or transpose of equal sizes (a square matrix) still moves elements: only the
  // other views of an unchanged shape are the identity.
  const bool moves = base == "permute" || base == "t" || base == "transpose";
  if (base == "alias" || base == "detach" || (!moves && out->sizes == in->sizes)) {
    mapped = idx;
  } else if (base == "permute") {
    const std::vector<std::int64_t> perm = ints_of(n.args.size() > 1 ? n.args[1] : Argument());
    mapped.dims.assign(in->sizes.size(), "0");
    for (std::size_t i = 0; i < perm.size() && i < idx.dims.size(); ++i) {
      mapped.dims[static_cast<std::size_t>(wrap_dim(perm[i], in->sizes.size()))] = idx.dims[i];
    }
  } else if (base == "t" || base == "transpose") {
    mapped = idx;
    mapped.linear.clear();
    const std::size_t rank = idx.dims.size();
    const auto d0 = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), rank));
    const auto d1 = static_cast<std::size_t>(wrap_dim(int_at(n, 2, 1), rank));
    if (rank >= 2 && d0 < rank && d1 < rank) std::swap(mapped.dims[d0], mapped.dims[d1]);
  } else if (base == "expand") {
    const std::size_t off = out->sizes.size() - in->sizes.size();
    for (std::size_t d = 0; d < in->sizes.size(); ++d) {
      const bool broadcast = in->sizes[d] == 1 && out->sizes[d + off] != 1;
      mapped.dims.push_back(broadcast ? "0" : idx.dims[d + off]);
    }
  } else if (base == "slice") {
    const std::size_t rank = in->sizes.size();
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), rank));
    if (dim >= rank) return fail(node, "slices a dimension the input lacks");
    std::int64_t start = int_at(n, 2, 0);
    if (start < 0) start += in->sizes[dim];
    start = std::max<std::int64_t>(0, std::min(start, in->sizes[dim]));
    const std::int64_t step = int_at(n, 4, 1);
    mapped = idx;
    mapped.linear.clear();
    const std::string e =
        step == 1 ? idx.dims[dim] : "(" + idx.dims[dim] + ") * " + std::to_string(step);
    mapped.dims[dim] = shift_index(e, start);
  } else if (base == "select") {
    const std::size_t rank = in->sizes.size();
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), rank));
    std::int64_t at = int_at(n, 2, 0);
    if (dim >= rank) return fail(node, "selects a dimension the input lacks");
    if (at < 0) at += in->sizes[dim];
    mapped.dims = idx.dims;
    mapped.dims.insert(mapped.dims.begin() + static_cast<std::ptrdiff_t>(dim), std::to_string(at));
  } else if (base == "view" || base == "_unsafe_view" || base == "reshape" || base == "unsqueeze" ||
             base == "squeeze" || base == "flatten" || base == "unflatten") {
    if (auto unit = match_unit_dims(idx, out->sizes, in->sizes)) {
      mapped = std::move(*unit);
    } else {
      // A reshape keeps the row-major order of the elements: same linear index, new sizes.
      // Delinearizing repeats the linear index once per dimension, so a chain of reshapes
      // (a channel shuffle's view, transpose, view) grows the text geometrically: a long one is
      // a variable of its own first.
      std::string linear = linearize(idx, out->sizes);
      if (linear.size() > kLongIndex) {
        const bool wide = out->numel() > std::numeric_limits<std::int32_t>::max();
        linear = declare(wide ? "long long" : "int", n.name + "_at", linear);
      }
      mapped = delinearize(linear, in->sizes);
    }
  } else if (base == "as_strided") {
    if (!is_leaf(input)) return fail(node, "restrides a computed value; only buffers can be");
    const std::vector<std::int64_t> stride = ints_of(n.args.size() > 2 ? n.args[2] : Argument());
    const std::int64_t storage = int_at(n, 3, 0);
    std::string off = std::to_string(storage);
    for (std::size_t d = 0; d < stride.size() && d < idx.dims.size(); ++d) {
      off += " + (" + idx.dims[d] + ") * " + std::to_string(stride[d]);
    }
    // The input is read as flat storage: its own annotated strides do not apply.
    note_loaded(input);
    const std::string& dtype = g_.node(input).meta->dtype;
    std::string expr = param_name(input) + "[" + off + "]";
    if (dtype == "f16") expr = "fx_h2f(" + expr + ")";
    if (dtype == "bf16") expr = "fx_b2f(" + expr + ")";
    return declare(compute_type(dtype), n.name, expr);
  } else {
    return fail(node, "is a view fxscope cannot index through");
  }
  if (!moves && mapped.linear.empty() && out->sizes == in->sizes) mapped.linear = idx.linear;
  return value(input, mapped);
}

Result<std::string> ValueEmitter::getitem_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  const NodeId parent = n.args[0].as_node();
  const graph::Node& p = g_.node(parent);
  const std::string base(ops::op_base_name(p.target));
  const std::int64_t k = int_at(n, 1, 0);
  if (is_max_pool(p)) return pool_value(parent, k, idx);
  const auto in =
      shape_of(p.args.empty() || !p.args[0].is_node() ? p : g_.node(p.args[0].as_node()), hints_);
  if (!in || p.args.empty() || !p.args[0].is_node())
    return fail(node, "picks from an unknown tuple");
  const NodeId input = p.args[0].as_node();
  const std::size_t rank = in->sizes.size();
  if (fusion::trivial_sort(g_, parent)) {
    // ir.Sort.create's copy of one element: the values are the input where they are, the
    // indices (int64) position 0.
    if (k != 0) return std::string("(0LL)");
    return value(input, idx);
  }
  Index mapped = idx;
  mapped.linear.clear();
  if (base == "split" || base == "split_with_sizes") {
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(p, 2, 0), rank));
    if (dim >= rank) return fail(node, "splits a dimension the input lacks");
    std::int64_t start = 0;
    if (base == "split") {
      start = k * int_at(p, 1, 1);
    } else {
      const std::vector<std::int64_t> sizes = ints_of(p.args.size() > 1 ? p.args[1] : Argument());
      for (std::int64_t j = 0; j < k && static_cast<std::size_t>(j) < sizes.size(); ++j) {
        start += sizes[static_cast<std::size_t>(j)];
      }
    }
    if (start) mapped.dims[dim] = std::to_string(start) + " + " + idx.dims[dim];
  } else if (base == "unbind") {
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(p, 1, 0), rank));
    if (dim > idx.dims.size()) return fail(node, "unbinds a dimension the input lacks");
    mapped.dims.insert(mapped.dims.begin() + static_cast<std::ptrdiff_t>(dim), std::to_string(k));
  } else {
    return fail(node, "picks output " + std::to_string(k) + " of " + base +
                          ", which this kernel does not compute");
  }
  return value(input, mapped);
}

}  // namespace fxscope::codegen
