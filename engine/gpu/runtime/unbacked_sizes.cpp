#include "fxscope/gpu/unbacked_sizes.h"

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

}  // namespace

std::vector<UnboundCount> unbound_counts(const graph::Graph& graph, const ops::SymbolHints& hints) {
  std::vector<UnboundCount> out;
  for (graph::NodeId n = 0; n < graph.size(); ++n) {
    const graph::Node& node = graph.node(n);
    if (!node.is_op() || ops::op_key(node.target) != "aten.nonzero" || !node.meta ||
        node.meta->sizes.empty() || node.args.empty() || !node.args[0].is_node()) {
      continue;
    }
    const graph::Dim& rows = node.meta->sizes[0];
    if (!rows.is_symbolic() || hints.count(rows.expr)) continue;
    const auto& in = graph.node(node.args[0].as_node()).meta;
    if (!in) continue;
    out.push_back({n, rows.expr, ops::numel(*in, hints)});
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
