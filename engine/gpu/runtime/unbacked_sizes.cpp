#include "fxscope/gpu/unbacked_sizes.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {
namespace {

// The identifiers of TEXT that name an unbacked symbol: 'u' and digits, whole.
std::vector<std::string> unbacked_names(const std::string& text) {
  std::vector<std::string> out;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t i = 0; i < text.size();) {
    if (!word(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && word(text[j])) ++j;
    const std::string id = text.substr(i, j - i);
    bool digits = id.size() > 1 && id[0] == 'u';
    for (std::size_t k = 1; digits && k < id.size(); ++k) {
      digits = std::isdigit(static_cast<unsigned char>(id[k])) != 0;
    }
    if (digits) out.push_back(id);
    i = j;
  }
  return out;
}

// A slice.Tensor(x, dim, start, end) whose end is an .item()'s symbol and whose length along dim
// is an unbacked symbol HINTS lack.
std::optional<UnboundCount> slice_by_item(const graph::Graph& graph, const graph::Node& node,
                                          const ops::SymbolHints& hints) {
  if (ops::op_key(node.target) != "aten.slice" || !node.meta || node.args.size() < 4 ||
      !node.args[0].is_node() || !node.args[3].is_node()) {
    return std::nullopt;
  }
  const auto& in = graph.node(node.args[0].as_node()).meta;
  const graph::Node& end = graph.node(node.args[3].as_node());
  const std::string_view reads = ops::op_base_name(end.target);
  if (!in || !end.meta || !end.meta->is_sym_scalar() || end.args.empty() ||
      !end.args[0].is_node() || (reads != "item" && reads != "_local_scalar_dense")) {
    return std::nullopt;
  }
  const auto rank = static_cast<std::int64_t>(node.meta->rank());
  std::int64_t dim =
      node.args[1].kind() == graph::Argument::Kind::integer ? node.args[1].as_int() : 0;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || static_cast<std::size_t>(dim) >= in->rank()) return std::nullopt;
  const graph::Dim& length = node.meta->sizes[static_cast<std::size_t>(dim)];
  const std::vector<std::string> names = unbacked_names(length.expr);
  if (!length.is_symbolic() || hints.count(length.expr) || names.size() != 1 ||
      names.front() != length.expr) {
    return std::nullopt;
  }
  std::int64_t start = 0;
  if (node.args[2].kind() == graph::Argument::Kind::integer) {
    start = node.args[2].as_int();
  } else if (!node.args[2].is_none()) {
    return std::nullopt;
  }
  if (node.args.size() > 4 && node.args[4].kind() == graph::Argument::Kind::integer &&
      node.args[4].as_int() != 1) {
    return std::nullopt;
  }
  const graph::Dim& whole = in->sizes[static_cast<std::size_t>(dim)];
  if (!unbacked_names(whole.expr).empty()) return std::nullopt;
  const std::int64_t size = ops::eval_dim(whole, hints);
  if (start < 0) start += size;
  start = std::clamp<std::int64_t>(start, 0, size);
  return UnboundCount{end.args[0].as_node(), length.expr, size - start,
                      SliceByItem{start, size, end.meta->sym}};
}

// The one element of a 0-d tensor of DTYPE, as a double; nullopt for a dtype it does not read.
std::optional<double> scalar_of(const std::string& dtype, const std::vector<std::byte>& bytes) {
  const auto read = [&](auto v) -> std::optional<double> {
    if (bytes.size() < sizeof v) return std::nullopt;
    std::memcpy(&v, bytes.data(), sizeof v);
    return static_cast<double>(v);
  };
  if (dtype == "i64") return read(std::int64_t{});
  if (dtype == "i32") return read(std::int32_t{});
  if (dtype == "i16") return read(std::int16_t{});
  if (dtype == "i8") return read(std::int8_t{});
  if (dtype == "u8" || dtype == "b8") return read(std::uint8_t{});
  if (dtype == "f32") return read(float{});
  if (dtype == "f64") return read(double{});
  return std::nullopt;
}

}  // namespace

std::vector<UnboundCount> unbound_counts(const graph::Graph& graph, const ops::SymbolHints& hints) {
  std::vector<UnboundCount> out;
  for (graph::NodeId n = 0; n < graph.size(); ++n) {
    const graph::Node& node = graph.node(n);
    if (auto slice = slice_by_item(graph, node, hints)) {
      out.push_back(std::move(*slice));
      continue;
    }
    if (!node.is_op() || ops::op_key(node.target) != "aten.nonzero" || !node.meta ||
        node.meta->sizes.empty() || node.args.empty() || !node.args[0].is_node()) {
      continue;
    }
    const graph::Dim& rows = node.meta->sizes[0];
    if (!rows.is_symbolic() || hints.count(rows.expr)) continue;
    const auto& in = graph.node(node.args[0].as_node()).meta;
    if (!in) continue;
    out.push_back({n, rows.expr, ops::numel(*in, hints), std::nullopt});
  }
  return out;
}

ops::SymbolHints with_upper_bounds(const graph::Graph& graph, const ops::SymbolHints& hints) {
  ops::SymbolHints out = hints;
  for (const UnboundCount& c : unbound_counts(graph, hints)) out.emplace(c.symbol, c.upper_bound);
  return out;
}

std::optional<std::string> unbound_unbacked_symbol(const graph::TensorMeta& meta,
                                                   const ops::SymbolHints& hints) {
  for (const auto* dims : {&meta.sizes, &meta.strides}) {
    for (const graph::Dim& d : *dims) {
      if (!d.is_symbolic()) continue;
      for (const std::string& name : unbacked_names(d.expr)) {
        if (!hints.count(name)) return name;
      }
    }
  }
  return std::nullopt;
}

void bind_unbacked_dims(graph::TensorMeta& meta, const ops::SymbolHints& hints) {
  for (auto* dims : {&meta.sizes, &meta.strides}) {
    for (graph::Dim& d : *dims) {
      if (!d.is_symbolic()) continue;
      const std::vector<std::string> names = unbacked_names(d.expr);
      if (names.empty()) continue;
      if (std::all_of(names.begin(), names.end(),
                      [&](const std::string& n) { return hints.count(n) > 0; })) {
        d = graph::Dim::constant(ops::eval_dim(d, hints));
      }
    }
  }
}

ops::SymbolHints counts_found(const UnboundCount& c, const graph::TensorMeta& meta,
                              const std::vector<std::byte>& bytes, const ops::SymbolHints& hints) {
  ops::SymbolHints found;
  if (!c.slice) {
    found[c.symbol] = nonzero_rows_found(meta, bytes, hints);
    return found;
  }
  const std::optional<double> value = scalar_of(meta.dtype, bytes);
  if (!value) return found;
  auto end = static_cast<std::int64_t>(*value);
  if (!c.slice->item_symbol.empty()) found[c.slice->item_symbol] = end;
  if (end < 0) end += c.slice->size;
  end = std::clamp<std::int64_t>(end, c.slice->start, c.slice->size);
  found[c.symbol] = end - c.slice->start;
  return found;
}

std::int64_t nonzero_rows_found(const graph::TensorMeta& meta, const std::vector<std::byte>& bytes,
                                const ops::SymbolHints& hints) {
  if (meta.sizes.empty() || meta.strides.empty()) return 0;
  const std::int64_t rows = ops::eval_dim(meta.sizes[0], hints);
  const std::int64_t stride = ops::eval_dim(meta.strides[0], hints);
  std::int64_t found = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto at = static_cast<std::size_t>(r * stride) * sizeof(std::int64_t);
    if (at + sizeof(std::int64_t) > bytes.size()) break;
    std::int64_t v;
    std::memcpy(&v, bytes.data() + at, sizeof v);
    if (v < 0) break;
    ++found;
  }
  return found;
}

}  // namespace fxscope::gpu
