#pragma once
// One edge of the graph canvas: the layout's bezier with an arrow head, and the producer's
// tensor shape as its tooltip. Zoomed far out it is a straight line, which is several times
// cheaper to draw on a graph with thousands of edges.

#include <QGraphicsItem>
#include <QLineF>
#include <QPainterPath>
#include <vector>

namespace fxscope::views {

class EdgeItem : public QGraphicsItem {
 public:
  // POINTS: start, then three control points per cubic segment (at least four in all).
  explicit EdgeItem(const std::vector<QPointF>& points);

  QRectF boundingRect() const override { return bounds_; }
  QPainterPath shape() const override { return path_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QPainterPath path_;
  QLineF chord_;
  QRectF bounds_;
};

}  // namespace fxscope::views
