// GraphLowering.decide_layout_opt replayed: the heuristics that turn channels-last layout on or
// off for a whole graph, from its convolutions' shapes.

#include "fxscope/fusion/layout_opt.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fxscope/ops/op_cost.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {
namespace {

bool has_free_symbols(const graph::TensorMeta& meta) {
  const auto symbolic = [](const graph::Dim& d) { return d.is_symbolic(); };
  return std::any_of(meta.sizes.begin(), meta.sizes.end(), symbolic) ||
         std::any_of(meta.strides.begin(), meta.strides.end(), symbolic);
}

// What decide_layout_opt reads of one convolution: its weight's sizes, its groups and FLOPs.
struct Conv {
  std::array<std::int64_t, 3> weight{};  // out channels, in channels per group, kernel height
  std::int64_t groups = 1;
  double flops = 0.0;

  // groups > 1 with more than one input channel per group: much slower in channels-last.
  bool grouped() const { return groups > 1 && weight[1] > 1; }
  bool small_channel() const { return weight[0] <= 64 && weight[1] <= 64; }
  bool in_out_channel() const { return weight[0] * 2 <= weight[1] && weight[2] > 1; }
};

enum class ConvRead { ok, dynamic, unreadable };

ConvRead read_conv(const graph::Graph& g, const graph::Node& node, const PlanOptions& options,
                   Conv& conv) {
  if (node.args.size() < 2 || !node.args[0].is_node() || !node.args[1].is_node()) {
    return ConvRead::unreadable;
  }
  const graph::Node& x = g.node(node.args[0].as_node());
  const graph::Node& w = g.node(node.args[1].as_node());
  if (!x.meta || !w.meta) return ConvRead::unreadable;
  if (has_free_symbols(*x.meta) || has_free_symbols(*w.meta)) return ConvRead::dynamic;
  if (w.meta->rank() < 3) return ConvRead::unreadable;
  for (std::size_t d = 0; d < 3; ++d) conv.weight[d] = w.meta->sizes[d].value;
  const graph::Argument& groups = node.args.back();
  if (groups.kind() == graph::Argument::Kind::integer) conv.groups = groups.as_int();
  // count_flops_fx: 2 x output elements x the weight's elements per output channel.
  const std::int64_t out = node.meta ? ops::numel(*node.meta, options.hints) : 0;
  const std::int64_t per_channel =
      ops::numel(*w.meta, options.hints) / std::max<std::int64_t>(1, conv.weight[0]);
  conv.flops = 2.0 * static_cast<double>(out) * static_cast<double>(per_channel);
  return ConvRead::ok;
}

// Inference graphs weigh each kind of convolution by its measured channels-last speedup.
bool inference_speeds_up(const std::vector<Conv>& convs) {
  constexpr double kGrouped = 1.358;
  constexpr double kDefault = 0.823;
  constexpr double kInOut = 0.725;
  constexpr double kSmall = 0.783;
  double total = 0.0;
  double weighted = 0.0;
  for (const Conv& c : convs) {
    total += c.flops;
    const double factor = c.grouped()          ? kGrouped
                          : c.small_channel()  ? kSmall
                          : c.in_out_channel() ? kInOut
                                               : kDefault;
    weighted += c.flops * factor;
  }
  return weighted <= total;
}

}  // namespace

bool decide_layout_opt(const graph::Graph& graph, const PlanOptions& options) {
  std::vector<Conv> convs;
  for (const graph::Node& node : graph.nodes()) {
    if (!node.is_op() || ops::op_base_name(node.target) != "convolution") continue;
    Conv conv;
    const ConvRead read = read_conv(graph, node, options, conv);
    // Dynamic shapes regress in channels-last (pytorch#102670): Inductor keeps FX's strides.
    if (read == ConvRead::dynamic) return false;
    if (read == ConvRead::ok) convs.push_back(conv);
  }
  if (convs.empty()) return false;
  // A graph with few convolutions among many ops (transformers with a patch embedding).
  if (graph.size() >= 300 * convs.size()) return false;
  if (options.inference) return inference_speeds_up(convs);
  if (std::any_of(convs.begin(), convs.end(), [](const Conv& c) { return c.grouped(); })) {
    return false;
  }
  if (std::any_of(convs.begin(), convs.end(), [](const Conv& c) { return c.in_out_channel(); })) {
    return false;
  }
  return !std::all_of(convs.begin(), convs.end(), [](const Conv& c) { return c.small_channel(); });
}

std::vector<bool> nodes_prefer_channels_last(const graph::Graph& graph) {
  const auto n = static_cast<graph::NodeId>(graph.size());
  const std::vector<std::vector<graph::NodeId>> users = graph.users();
  const auto target_is = [&](graph::NodeId i, std::string_view op) {
    return graph.node(i).is_op() && ops::op_base_name(graph.node(i).target) == op;
  };
  std::vector<bool> prefer(n, false);
  std::optional<graph::NodeId> last_conv;
  for (graph::NodeId i = n; i-- > 0;) {
    if (target_is(i, "convolution")) {
      prefer[i] = true;
      if (!last_conv) last_conv = i;
      continue;
    }
    if (target_is(i, "bmm")) continue;
    prefer[i] =
        std::any_of(users[i].begin(), users[i].end(), [&](graph::NodeId u) { return prefer[u]; });
  }
  // The layout spreads forward to what flagged nodes feed, ending at the last convolution (the
  // vision transformer after a convolutional stem keeps its own layouts).
  for (graph::NodeId i = 0; i < n && i != last_conv; ++i) {
    if (!prefer[i]) continue;
    for (const graph::NodeId u : users[i]) {
      if (!target_is(u, "bmm")) prefer[u] = true;
    }
  }
  return prefer;
}

}  // namespace fxscope::fusion
