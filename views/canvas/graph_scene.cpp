#include "canvas/graph_scene.h"

#include <utility>

#include "canvas/cluster_item.h"
#include "canvas/cut_item.h"
#include "canvas/edge_item.h"
#include "canvas/node_item.h"
#include "compare/change_marks.h"
#include "layout/heat_overlay.h"

namespace fxscope::views {
namespace {

constexpr double kGoldenAngle = 137.508;
constexpr double kClusterZ = -2;
constexpr double kEdgeZ = -1;

QString text_of(const std::string& s) {
  return QString::fromStdString(s);
}

QColor node_fill(QColor group_fill) {
  return group_fill.darker(108);
}

}  // namespace

GraphScene::GraphScene(QObject* parent) : QGraphicsScene(parent) {
  setBackgroundBrush(QColor(250, 250, 252));
}

GraphScene::~GraphScene() {
  blockSignals(true);
}

QColor GraphScene::group_color(const CanvasGroup& group, std::size_t index) {
  if (group.kind == fusion::GroupKind::extern_kernel) return {214, 214, 218};
  const int hue = int(double(index) * kGoldenAngle) % 360;
  return QColor::fromHsv(hue, 70, 245);
}

void GraphScene::show_graph(CanvasGraphPtr graph) {
  clear();
  nodes_.clear();
  clusters_.clear();
  heat_shown_ = false;
  graph_ = std::move(graph);
  if (!graph_ || graph_->layout.nodes.size() != graph_->graph.size()) {
    setSceneRect(QRectF());
    emit content_changed();
    return;
  }
  add_clusters();
  add_edges();
  add_nodes();
  QRectF area = graph_->layout.bounds;
  for (const UnitCut& cut : graph_->cuts) {
    auto* item = new CutItem(cut, graph_->layout.bounds);
    addItem(item);
    area |= item->sceneBoundingRect();
  }
  setSceneRect(area.adjusted(-40, -40, 40, 40));
  emit content_changed();
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
    clusters_.push_back(item);
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
                  : node_fill(group_color(graph_->groups[std::size_t(group)], std::size_t(group)));
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

std::vector<NodeItem*> GraphScene::select_nodes(const std::vector<graph::NodeId>& ids) {
  clearSelection();
  std::vector<NodeItem*> found;
  for (graph::NodeId id : ids) {
    if (id >= nodes_.size()) continue;
    nodes_[id]->setSelected(true);
    found.push_back(nodes_[id]);
  }
  return found;
}

void GraphScene::set_heat(const HeatOverlay* heat) {
  if (!graph_ || (heat != nullptr && heat->groups.size() != graph_->groups.size())) return;
  heat_shown_ = heat != nullptr;
  for (std::size_t g = 0; g < clusters_.size(); ++g) {
    const CanvasGroup& group = graph_->groups[g];
    QColor fill = group_color(group, g);
    bool hatched = false;
    if (heat != nullptr) {
      const GroupHeat& h = heat->groups[g];
      fill = heat_color(heat->max_us > 0 ? h.us / heat->max_us : 0.0);
      // Hatching marks a prediction only where other groups were measured.
      hatched = !h.measured && heat->mode != nullptr;
    }
    clusters_[g]->set_fill(fill, hatched);
    // The title says which time the colour is.
    clusters_[g]->set_title(heat == nullptr
                                ? text_of(cluster_label(group))
                                : QStringLiteral("%1  %2 us %3")
                                      .arg(text_of(group.name))
                                      .arg(heat->groups[g].us, 0, 'f', 1)
                                      .arg(heat->groups[g].measured ? QStringLiteral("measured")
                                                                    : QStringLiteral("predicted")));
    for (graph::NodeId id : group.nodes) {
      // Under heat, nodes are a paler tint of their group, so their text stays readable on
      // the hot end of the scale.
      if (id < nodes_.size()) {
        nodes_[id]->set_fill(heat != nullptr ? QColor::fromRgbF(0.55f * fill.redF() + 0.45f,
                                                                0.55f * fill.greenF() + 0.45f,
                                                                0.55f * fill.blueF() + 0.45f)
                                             : node_fill(fill));
      }
    }
  }
  emit content_changed();
}

void GraphScene::set_marks(const GraphMarks* marks) {
  if (!graph_ || marks == nullptr) return;
  if (marks->groups.size() != clusters_.size() || marks->nodes.size() != nodes_.size()) return;
  for (std::size_t g = 0; g < clusters_.size(); ++g) {
    // Groups paler than nodes: a marked node stands out inside a marked group.
    const ChangeMark group_mark = marks->groups[g];
    clusters_[g]->set_fill(group_mark == ChangeMark::none ? mark_color(group_mark)
                                                          : mark_color(group_mark).lighter(130),
                           false);
    const QString mark = to_text(marks->groups[g]);
    const QString name = text_of(cluster_label(graph_->groups[g]));
    clusters_[g]->set_title(mark.isEmpty() ? name : QStringLiteral("%1  (%2)").arg(name, mark));
  }
  // A marked node keeps its own colour inside a group of another mark: a removed op in a
  // group that changed is still red.
  for (std::size_t id = 0; id < nodes_.size(); ++id) {
    const ChangeMark mark = marks->nodes[id];
    nodes_[id]->set_fill(mark == ChangeMark::none ? QColor(250, 250, 252)
                                                  : mark_color(mark).darker(108));
  }
  emit content_changed();
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
