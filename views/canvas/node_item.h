#pragma once
// One node of the graph canvas: a rounded box with the op and the output shape. Its text is
// made once; paint() only draws, and when zoomed out it draws a plain rectangle.

#include <QColor>
#include <QGraphicsItem>
#include <QStaticText>

#include "fxscope/graph/node.h"

namespace fxscope::views {

class NodeItem : public QGraphicsItem {
 public:
  // BOX is in scene coordinates; the item sits at its top left.
  NodeItem(graph::NodeId id, const QRectF& box, const QString& op, const QString& shape,
           QColor fill);

  graph::NodeId id() const { return id_; }
  // The overlays recolour nodes in place: rebuilding the items of a 5,000-node graph is slower.
  void set_fill(QColor fill);
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  graph::NodeId id_;
  QRectF bounds_;
  QStaticText op_;
  QStaticText shape_;
  QColor fill_;
  bool has_shape_;
};

}  // namespace fxscope::views
