#include "graph_scene.h"

#include <utility>

#include "cluster_item.h"
#include "edge_item.h"
#include "node_item.h"

namespace fxscope::views {
namespace {

constexpr double kGoldenAngle = 137.508;
constexpr double kClusterZ = -2;
constexpr double kEdgeZ = -1;

QString text_of(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(QColor(250, 250, 252));
}

QColor GraphScene::group_color(const CanvasGroup& group, std::size_t index) {
  if (group.kind == fusion::GroupKind::extern_kernel) return {214, 214, 218};
  const int hue = int(double(index) * kGoldenAngle) % 360;
  return QColor::fromHsv(hue, 70, 245);
}

void GraphScene::show_graph(CanvasGraphPtr graph) {
  clear();
  nodes_.clear();
  graph_ = std::move(graph);
  if (!graph_ || graph_->layout.nodes.size() != graph_->graph.size()) {
    setSceneRect(QRectF());
    return;
  }
  add_clusters();
  add_edges();
  add_nodes();
  setSceneRect(graph_->layout.bounds.adjusted(-40, -40, 40, 40));
}

void GraphScene::add_clusters() {
  const auto& boxes = graph_->layout.clusters;
  for (std::size_t g = 0; g < boxes.size() && g < graph_->groups.size(); ++g) {
    const CanvasGroup& group = graph_->groups[g];
    auto* item = new ClusterItem(boxes[g], text_of(cluster_label(group)), group_color(group, g));
    item->setZValue(kClusterZ);
    item->setToolTip(QStringLiteral("%1\n%2, predicted %3 µs")
                         .arg(text_of(group.name), text_of(std::string(to_string(group.kind))))
                         .arg(group.predicted_us, 0, 'f', 1));
    addItem(item);
  }
}

void GraphScene::add_edges() {
  const auto& points = graph_->layout.edges;
  for (std::size_t e = 0; e < points.size() && e < graph_->edges.size(); ++e) {
    if (points[e].size() < 4) continue;
    auto* item = new EdgeItem(points[e]);
    item->setZValue(kEdgeZ);
    const auto from = static_cast<graph::NodeId>(graph_->edges[e].from);
    const QString shape = text_of(graph_->shape_text[from]);
    item->setToolTip(text_of(graph_->graph.node(from).name) +
                     (shape.isEmpty() ? QString() : QStringLiteral(": ") + shape));
    addItem(item);
  }
}

void GraphScene::add_nodes() {
  nodes_.reserve(graph_->graph.size());
  for (graph::NodeId id = 0; id < graph_->graph.size(); ++id) {
    const int group = graph_->group_of[id];
    const QColor fill =
        group < 0 ? QColor(255, 255, 255)
                  : group_color(graph_->groups[std::size_t(group)], std::size_t(group)).darker(108);
    auto* item = new NodeItem(id, graph_->layout.nodes[id], text_of(graph_->op_text[id]),
                              text_of(graph_->shape_text[id]), fill);
    addItem(item);
    nodes_.push_back(item);
  }
}

std::optional<graph::NodeId> GraphScene::find(const QString& text,
                                              std::optional<graph::NodeId> after) const {
  if (!graph_ || text.isEmpty()) return std::nullopt;
  const std::size_t n = graph_->graph.size();
  const std::size_t first = after ? *after + 1 : 0;
  for (std::size_t k = 0; k < n; ++k) {
    const auto id = static_cast<graph::NodeId>((first + k) % n);
    if (text_of(graph_->graph.node(id).name).contains(text, Qt::CaseInsensitive) ||
        text_of(graph_->op_text[id]).contains(text, Qt::CaseInsensitive)) {
      return id;
    }
  }
  return std::nullopt;
}

NodeItem* GraphScene::select_node(graph::NodeId id) {
  if (id >= nodes_.size()) return nullptr;
  clearSelection();
  nodes_[id]->setSelected(true);
  return nodes_[id];
}

std::optional<graph::NodeId> GraphScene::selected_node() const {
  for (QGraphicsItem* item : selectedItems()) {
    if (auto* node = dynamic_cast<NodeItem*>(item)) return node->id();
  }
  return std::nullopt;
}

QPointF GraphScene::start_point() const {
  const NodeItem* top = nullptr;
  for (const NodeItem* item : nodes_) {
    if (top == nullptr || item->sceneBoundingRect().top() < top->sceneBoundingRect().top()) {
      top = item;
    }
  }
  return top != nullptr ? top->sceneBoundingRect().center() : sceneRect().center();
}

}  // namespace fxscope::views
