#pragma once
// One kernel group on the canvas: a tinted box behind its nodes with the kernel's name and
// predicted time in its title band. The title is drawn only when it is big enough to read.

#include <QColor>
#include <QGraphicsItem>
#include <QStaticText>

namespace fxscope::views {

class ClusterItem : public QGraphicsItem {
 public:
  ClusterItem(const QRectF& box, const QString& title, QColor fill);

  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QRectF bounds_;
  QStaticText title_;
  QColor fill_;
  QColor border_;
  QColor text_;
};

}  // namespace fxscope::views
