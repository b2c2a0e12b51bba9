#pragma once
// A graph break drawn on the canvas: a dashed red line across the graph's width where the unit
// ends (or, for a resumed unit, begins), the break's reason beside it and, past the line, a stub
// of the compile unit on the other side.

#include <QGraphicsItem>
#include <QStaticText>

#include "layout/unit_cuts.h"

namespace fxscope::views {

class CutItem : public QGraphicsItem {
 public:
  // GRAPH is the bounding box of the unit's own graph; the cut sits just outside it.
  CutItem(const UnitCut& cut, const QRectF& graph);

  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const QString& reason() const { return reason_text_; }

 private:
  QRectF bounds_;
  QLineF line_;
  QRectF stub_;
  QPointF reason_at_;
  QStaticText reason_;
  QStaticText neighbour_;
  QString reason_text_;
};

}  // namespace fxscope::views
