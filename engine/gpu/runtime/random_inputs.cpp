#include "fxscope/gpu/random_inputs.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/host_values.h"

namespace fxscope::gpu {
namespace {

// splitmix64: fast enough for the hundreds of millions of weights of a large model.
std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double unit_interval(std::uint64_t& state) {
  return static_cast<double>(next(state) >> 11) * 0x1.0p-53;
}

bool target_is(const graph::Node& node, std::string_view op) {
  const std::string& t = node.target;
  return t.find(op) != std::string::npos;
}

std::optional<std::int64_t> size_of(const graph::Graph& graph, const graph::Argument& arg,
                                    std::int64_t dim, const ops::SymbolHints& hints) {
  if (!arg.is_node()) return std::nullopt;
  const auto& meta = graph.node(arg.as_node()).meta;
  if (!meta || meta->rank() == 0) return std::nullopt;
  if (dim < 0) dim += static_cast<std::int64_t>(meta->rank());
  if (dim < 0 || dim >= static_cast<std::int64_t>(meta->rank())) return std::nullopt;
  return ops::eval_dim(meta->sizes[static_cast<std::size_t>(dim)], hints);
}

// The bound one user puts on INPUT, if it indexes with it.
std::optional<std::int64_t> bound_from(const graph::Graph& graph, const graph::Node& user,
                                       graph::NodeId input, const ops::SymbolHints& hints) {
  const auto& a = user.args;
  const auto is_input = [&](const graph::Argument& x) {
    return x.is_node() && x.as_node() == input;
  };
  if (target_is(user, "aten.embedding") && a.size() >= 2 && is_input(a[1])) {
    return size_of(graph, a[0], 0, hints);
  }
  if ((target_is(user, "aten.gather") || target_is(user, "aten.index_select")) && a.size() >= 3 &&
      is_input(a[2]) && a[1].kind() == graph::Argument::Kind::integer) {
    return size_of(graph, a[0], a[1].as_int(), hints);
  }
  if (target_is(user, "aten.index.Tensor") && a.size() >= 2) {
    const auto& indices = a[1].items();
    for (std::size_t k = 0; k < indices.size(); ++k) {
      if (is_input(indices[k])) return size_of(graph, a[0], static_cast<std::int64_t>(k), hints);
    }
  }
  return std::nullopt;
}

// Whether USER's values are INPUT's values moved, not computed: its source tensor of a gather or
// an index (BERT gathers its token-type buffer by position and embeds the result), a copy, a
// dtype conversion or a broadcast. A bound on USER's values is then one on INPUT's.
bool carries_values(const graph::Node& user, graph::NodeId input) {
  const auto& a = user.args;
  if (a.empty() || !a[0].is_node() || a[0].as_node() != input) return false;
  for (const char* op : {"aten.gather", "aten.index_select", "aten.index.Tensor", "aten.clone",
                         "aten._to_copy", "prims.convert_element_type", "aten.expand", "aten.slice",
                         "aten.select", "aten.repeat", "aten.contiguous"}) {
    if (target_is(user, op)) return true;
  }
  return false;
}

}  // namespace

std::vector<graph::NodeId> graph_inputs(const graph::Graph& graph) {
  std::vector<graph::NodeId> out;
  for (const auto kind : {graph::OpKind::placeholder, graph::OpKind::get_attr}) {
    for (graph::NodeId n = 0; n < graph.size(); ++n) {
      const graph::Node& node = graph.node(n);
      if (node.op != kind) continue;
      // A get_attr naming one of the graph's own subgraphs (a flex attention's score_mod, a
      // cond's branch) passes code, not a tensor: nothing feeds it.
      if (kind == graph::OpKind::get_attr && graph.find_subgraph(node.target) != nullptr) continue;
      out.push_back(n);
    }
  }
  return out;
}

std::vector<std::size_t> input_slots(const graph::Graph& graph, const graph::Graph& reference) {
  const std::vector<graph::NodeId> ids = graph_inputs(graph);
  const std::vector<graph::NodeId> ref = graph_inputs(reference);
  std::vector<std::size_t> slots(ids.size(), ref.size());
  std::vector<bool> taken(ref.size(), false);
  std::vector<bool> named(ids.size(), false);
  std::unordered_map<std::string_view, std::size_t> by_name;
  for (std::size_t r = 0; r < ref.size(); ++r) by_name.emplace(reference.node(ref[r]).name, r);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto it = by_name.find(graph.node(ids[i]).name);
    if (it == by_name.end() || taken[it->second]) continue;
    slots[i] = it->second;
    taken[it->second] = named[i] = true;
  }
  const auto same_kind = [&](graph::NodeId a, graph::NodeId b) {
    const auto& x = graph.node(a).meta;
    const auto& y = reference.node(b).meta;
    return x && y && x->dtype == y->dtype && x->sizes == y->sizes;
  };
  std::size_t next_ref = 0;
  std::size_t fresh = ref.size();
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (named[i]) continue;
    std::size_t r = next_ref;
    while (r < ref.size() && (taken[r] || !same_kind(ids[i], ref[r]))) ++r;
    if (r < ref.size()) {
      slots[i] = r;
      taken[r] = true;
      next_ref = r + 1;
    } else {
      slots[i] = fresh++;
    }
  }
  return slots;
}

std::vector<graph::NodeId> output_nodes(const graph::Graph& g) {
  std::vector<graph::NodeId> out;
  for (const graph::Node& n : g.nodes()) {
    if (n.op != graph::OpKind::output) continue;
    for (const auto& a : n.args) a.for_each_node([&](graph::NodeId id) { out.push_back(id); });
  }
  return out;
}

std::int64_t storage_elements(const graph::TensorMeta& meta, const ops::SymbolHints& hints) {
  std::int64_t last = 0;
  for (std::size_t d = 0; d < meta.sizes.size(); ++d) {
    const std::int64_t size = ops::eval_dim(meta.sizes[d], hints);
    if (size == 0) return 0;
    const std::int64_t stride = d < meta.strides.size() ? ops::eval_dim(meta.strides[d], hints) : 0;
    last += (size - 1) * std::abs(stride);
  }
  return last + 1;
}

std::size_t storage_bytes(const graph::TensorMeta& meta, const ops::SymbolHints& hints) {
  if (meta.is_sym_scalar()) return 0;
  return static_cast<std::size_t>(storage_elements(meta, hints)) * element_bytes(meta.dtype);
}

std::optional<std::int64_t> index_bound(const graph::Graph& graph, graph::NodeId input,
                                        const ops::SymbolHints& hints) {
  std::optional<std::int64_t> bound;
  const auto tighten = [&](std::optional<std::int64_t> b) {
    if (b && *b > 0) bound = bound ? std::min(*bound, *b) : *b;
  };
  for (graph::NodeId u = 0; u < graph.size(); ++u) {
    const graph::Node& user = graph.node(u);
    if (!user.is_op()) continue;
    const auto in = graph.inputs(u);
    if (std::find(in.begin(), in.end(), input) == in.end()) continue;
    tighten(bound_from(graph, user, input, hints));
    // Indices often pass through a view (the AOT graph reshapes token ids before embedding), or
    // are moved by an op that keeps their values.
    if (codegen::alias_of(graph, u, hints) || carries_values(user, input)) {
      tighten(index_bound(graph, u, hints));
    }
  }
  return bound;
}

std::vector<std::byte> random_tensor(const graph::TensorMeta& meta, const ops::SymbolHints& hints,
                                     std::uint64_t seed, std::optional<std::int64_t> bound) {
  const std::int64_t n = storage_elements(meta, hints);
  const std::size_t width = element_bytes(meta.dtype);
  std::vector<std::byte> out(static_cast<std::size_t>(n) * width);
  std::uint64_t state = seed;
  if (!is_floating(meta.dtype)) {
    const std::int64_t hi = meta.dtype == "b8" ? 2 : std::max<std::int64_t>(bound.value_or(2), 1);
    for (std::int64_t i = 0; i < n; ++i) {
      write_element(meta.dtype, out.data(), i,
                    static_cast<double>(next(state) % static_cast<std::uint64_t>(hi)));
    }
    return out;
  }
  const std::int64_t numel = ops::numel(meta, hints);
  const std::int64_t rows = meta.rank() > 0 ? ops::eval_dim(meta.sizes[0], hints) : 1;
  if (meta.rank() <= 1) {
    for (std::int64_t i = 0; i < n; ++i)
      write_element(meta.dtype, out.data(), i, 0.5 + unit_interval(state));
    return out;
  }
  const double fan_in =
      static_cast<double>(std::max<std::int64_t>(numel / std::max<std::int64_t>(rows, 1), 1));
  const double scale = std::clamp(1.0 / std::sqrt(fan_in), 0.02, 1.0);
  for (std::int64_t i = 0; i < n; ++i) {
    write_element(meta.dtype, out.data(), i, scale * (2.0 * unit_interval(state) - 1.0));
  }
  return out;
}

std::vector<std::vector<std::byte>> seeded_inputs(const graph::Graph& graph,
                                                  const ops::SymbolHints& hints,
                                                  std::uint64_t base_seed, const InputBound& bound,
                                                  const InputFill& fill) {
  const auto ids = graph_inputs(graph);
  std::vector<std::vector<std::byte>> out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& meta = graph.node(ids[i]).meta;
    if (!meta || meta->is_sym_scalar()) {
      out.emplace_back();
      continue;
    }
    if (fill) {
      if (auto given = fill(i, *meta)) {
        out.push_back(std::move(*given));
        continue;
      }
    }
    out.push_back(random_tensor(*meta, hints, base_seed + i * 7919ull, bound(i)));
  }
  return out;
}

}  // namespace fxscope::gpu
