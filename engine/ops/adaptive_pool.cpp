#include "fxscope/ops/adaptive_pool.h"

#include <vector>

#include "fxscope/ops/op_registry.h"

namespace fxscope::ops {
namespace {

std::vector<std::int64_t> output_size(const graph::Node& node) {
  std::vector<std::int64_t> out;
  if (node.args.size() < 2) return out;
  for (const graph::Argument& a : node.args[1].items()) {
    if (a.kind() != graph::Argument::Kind::integer) return {};
    out.push_back(a.as_int());
  }
  return out;
}

}  // namespace

bool adaptive_pool_windowed(const graph::Node& node) {
  if (!node.is_op()) return false;
  const std::string_view base = op_base_name(node.target);
  if (base != "_adaptive_avg_pool2d" && base != "adaptive_avg_pool2d") return false;
  const std::vector<std::int64_t> out = output_size(node);
  return out.size() == 2 && !(out[0] == 1 && out[1] == 1);
}

std::optional<AdaptiveWindow> adaptive_window(const graph::Graph& graph, graph::NodeId node,
                                              const SymbolHints& hints) {
  const graph::Node& n = graph.node(node);
  if (!adaptive_pool_windowed(n) || n.args.empty() || !n.args[0].is_node()) return std::nullopt;
  const auto& in = graph.node(n.args[0].as_node()).meta;
  if (!in || in->sizes.size() < 2) return std::nullopt;
  const std::vector<std::int64_t> out = output_size(n);
  AdaptiveWindow w;
  w.in_h = eval_dim(in->sizes[in->sizes.size() - 2], hints);
  w.in_w = eval_dim(in->sizes.back(), hints);
  w.out_h = out[0];
  w.out_w = out[1];
  if (w.out_h <= 0 || w.out_w <= 0) return std::nullopt;
  // ceildiv(in + out - 1, out): the widest window any output element takes.
  w.max_h = (w.in_h + w.out_h - 1 + w.out_h - 1) / w.out_h;
  w.max_w = (w.in_w + w.out_w - 1 + w.out_w - 1) / w.out_w;
  return w;
}

bool adaptive_pool_is_clone(const graph::Graph& graph, graph::NodeId node,
                            const SymbolHints& hints) {
  const std::optional<AdaptiveWindow> w = adaptive_window(graph, node, hints);
  return w && w->in_h == w->out_h && w->in_w == w->out_w;
}

}  // namespace fxscope::ops
