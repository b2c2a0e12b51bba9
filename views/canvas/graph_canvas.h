#pragma once
// The view onto a GraphScene: wheel zoom around the cursor, drag to pan, fit to view, and
// node selection reported as an id.

#include <QGraphicsView>
#include <optional>

#include "canvas/canvas_overview.h"

#include "fxscope/graph/node.h"

namespace fxscope::views {

class ChangeLegend;
class GraphScene;
class HeatLegend;

class GraphCanvas : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphCanvas(GraphScene* scene, QWidget* parent = nullptr);

  void fit_to_view();
  // For a new graph: fitted when that leaves its text readable, else its top at a readable
  // zoom (a 5,000-node graph fitted is a grey streak).
  void show_start();
  // Selects ID, zooms in far enough to read it and centres it unless it is in view already.
  void focus_node(graph::NodeId id);
  double zoom() const { return transform().m11(); }
  // Over the bottom-left corner, outside the scrolled viewport so it stays put; hidden until
  // the heat overlay is on.
  HeatLegend& legend() const { return *legend_; }
  // Over the top-right corner likewise; hidden until a comparison is open.
  ChangeLegend& change_legend() const { return *change_legend_; }
  void place_legend();
  // Whether the last frame was drawn from the overview picture (for the benchmark and tests).
  bool drew_overview() const { return drew_overview_; }

 signals:
  void node_selected(std::size_t id);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void zoom_by(double factor);

  GraphScene* scene_;
  HeatLegend* legend_ = nullptr;
  ChangeLegend* change_legend_ = nullptr;
  CanvasOverview overview_;
  // A new graph fits the view until the user zooms or pans; resizes keep it fitted till then.
  bool auto_fit_ = true;
  bool drew_overview_ = false;
};

}  // namespace fxscope::views
