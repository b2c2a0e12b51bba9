#pragma once
// The scene of one CanvasGraph: cluster boxes behind, edges, then nodes. Built once per graph on
// the UI thread from the finished layout; it keeps the graph alive for the items' lifetime.

#include <QGraphicsScene>
#include <optional>
#include <vector>

#include "layout/canvas_graph.h"

namespace fxscope::views {

class ClusterItem;
struct GraphMarks;
struct HeatOverlay;
class NodeItem;

class GraphScene : public QGraphicsScene {
  Q_OBJECT

 public:
  explicit GraphScene(QObject* parent = nullptr);
  // Silent from here on: QGraphicsScene's destructor deletes the items one by one, and each
  // selected one removed would announce the rest as the new selection to a canvas and a panel
  // that are being destroyed with it (closing a window with a kernel's nodes selected would crash).
  ~GraphScene() override;

  // Replaces everything with GRAPH's items; null clears the scene.
  void show_graph(CanvasGraphPtr graph);
  const CanvasGraphPtr& graph() const { return graph_; }

  // The next node after AFTER (wrapping) whose name or op contains TEXT, case-insensitive.
  std::optional<graph::NodeId> find(const QString& text, std::optional<graph::NodeId> after) const;
  // Selects ID alone and returns its item; null when there is no such node.
  NodeItem* select_node(graph::NodeId id);
  // Selects IDS together (a kernel's nodes); returns the items found, in IDS order.
  std::vector<NodeItem*> select_nodes(const std::vector<graph::NodeId>& ids);
  std::optional<graph::NodeId> selected_node() const;
  // Where a reader starts: the centre of the top-most node (the graph's first inputs); the
  // scene's centre when it has no node.
  QPointF start_point() const;

  // One fill per group, spread around the hue circle; extern kernels are grey.
  static QColor group_color(const CanvasGroup& group, std::size_t index);

  // Colours groups and their nodes by HEAT's time (hatched where predicted), or, with null, by
  // group again. HEAT must be of the shown graph.
  void set_heat(const HeatOverlay* heat);
  bool heat_shown() const { return heat_shown_; }
  // Colours groups and nodes by a comparison's MARKS (added, removed, changed, the rest grey),
  // over the heat or group colours; null gives those back. MARKS must be of the shown graph.
  void set_marks(const GraphMarks* marks);

 signals:
  // The items or their colours changed (not the selection): pictures of the scene are stale.
  void content_changed();

 private:
  void add_clusters();
  void add_edges();
  void add_nodes();

  CanvasGraphPtr graph_;
  std::vector<NodeItem*> nodes_;
  std::vector<ClusterItem*> clusters_;  // parallel to graph_->groups
  bool heat_shown_ = false;
};

}  // namespace fxscope::views
