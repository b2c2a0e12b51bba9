#include "layout/layered_layout.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <numeric>

namespace fxscope::views {
namespace {

constexpr double kNodeGap = 18;
constexpr double kLayerGap = 26;
constexpr double kClusterMargin = 8;

struct Adjacency {
  std::vector<std::vector<std::size_t>> preds;
  std::vector<std::vector<std::size_t>> succs;
};

Adjacency adjacency(const GraphLayoutInput& input) {
  Adjacency adj;
  adj.preds.resize(input.nodes.size());
  adj.succs.resize(input.nodes.size());
  for (const auto& e : input.edges) {
    if (e.from == e.to) continue;
    adj.preds[e.to].push_back(e.from);
    adj.succs[e.from].push_back(e.to);
  }
  return adj;
}

// Longest path from the sources (Kahn's order; nodes on a cycle, which FX graphs do not have,
// keep what their visited inputs gave them). Then, in reverse order, every node with users moves
// down to just above its first user: weights and their views sit beside the op that reads
// them rather than in one wide top row, which would also stretch their groups' boxes.
std::vector<std::size_t> assign_layers(const Adjacency& adj) {
  const std::size_t n = adj.preds.size();
  std::vector<std::size_t> layer(n, 0);
  std::vector<std::size_t> pending(n);
  std::deque<std::size_t> ready;
  for (std::size_t v = 0; v < n; ++v) {
    pending[v] = adj.preds[v].size();
    if (pending[v] == 0) ready.push_back(v);
  }
  std::vector<std::size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const std::size_t v = ready.front();
    ready.pop_front();
    order.push_back(v);
    for (std::size_t s : adj.succs[v]) {
      layer[s] = std::max(layer[s], layer[v] + 1);
      if (--pending[s] == 0) ready.push_back(s);
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (adj.succs[*it].empty()) continue;
    std::size_t first_user = std::numeric_limits<std::size_t>::max();
    for (std::size_t s : adj.succs[*it]) first_user = std::min(first_user, layer[s]);
    layer[*it] = first_user - 1;
  }
  return layer;
}

}  // namespace

GraphLayoutResult layout_layered(const GraphLayoutInput& input) {
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = input.nodes.size();
  GraphLayoutResult result;
  result.engine = "layered";
  result.nodes.resize(n);
  const Adjacency adj = adjacency(input);
  std::vector<std::size_t> layer = assign_layers(adj);
  if (!input.bottom.empty() && n > 0) {
    const std::size_t last = *std::max_element(layer.begin(), layer.end()) + 1;
    for (std::size_t v : input.bottom) layer[v] = last;
  }
  const std::size_t layer_count = n == 0 ? 0 : *std::max_element(layer.begin(), layer.end()) + 1;
  std::vector<std::vector<std::size_t>> layers(layer_count);
  for (std::size_t v = 0; v < n; ++v) layers[layer[v]].push_back(v);

  // Top to bottom: each node wants to sit under the mean of its inputs' centres; nodes are
  // ordered by that wish and pushed right only as far as their neighbours need.
  std::vector<double> centre_x(n, 0);
  std::vector<double> wish(n, 0);
  double y = 0;
  for (auto& row : layers) {
    if (row.empty()) continue;  // sources moved down can leave a layer empty
    for (std::size_t v : row) {
      double sum = 0;
      for (std::size_t p : adj.preds[v]) sum += centre_x[p];
      wish[v] = adj.preds[v].empty() ? 0 : sum / double(adj.preds[v].size());
    }
    std::stable_sort(row.begin(), row.end(),
                     [&](std::size_t a, std::size_t b) { return wish[a] < wish[b]; });
    double total = 0;
    double height = 0;
    for (std::size_t v : row) {
      total += input.nodes[v].width + kNodeGap;
      height = std::max(height, input.nodes[v].height);
    }
    double right = -std::numeric_limits<double>::infinity();
    double x_min = -total / 2;  // a row with no wishes is centred
    for (std::size_t v : row) {
      const double w = input.nodes[v].width;
      double left = std::max(wish[v] - w / 2, x_min);
      if (right > -std::numeric_limits<double>::infinity()) left = std::max(left, right + kNodeGap);
      x_min = left;
      right = left + w;
      centre_x[v] = left + w / 2;
      result.nodes[v] =
          QRectF(left, y + (height - input.nodes[v].height) / 2, w, input.nodes[v].height);
    }
    y += height + kLayerGap;
  }

  for (const auto& e : input.edges) {
    if (e.from == e.to) {
      result.edges.emplace_back();
      continue;
    }
    const QRectF& a = result.nodes[e.from];
    const QRectF& b = result.nodes[e.to];
    const QPointF p0(a.center().x(), a.bottom());
    const QPointF p3(b.center().x(), b.top());
    const double bend = (p3.y() - p0.y()) / 2;
    result.edges.push_back({p0, p0 + QPointF(0, bend), p3 - QPointF(0, bend), p3});
  }
  for (const auto& members : input.clusters) {
    QRectF box;
    for (std::size_t v : members)
      box = box.isNull() ? result.nodes[v] : box.united(result.nodes[v]);
    result.clusters.push_back(box.adjusted(-kClusterMargin, -kClusterMargin - kClusterLabelPixels,
                                           kClusterMargin, kClusterMargin));
  }
  for (const QRectF& r : result.nodes) result.bounds = result.bounds.united(r);
  for (const QRectF& r : result.clusters) result.bounds = result.bounds.united(r);
  result.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace fxscope::views
