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

  // HATCHED marks a time the cost model predicted where the overlay shows measured ones.
  void set_fill(QColor fill, bool hatched);
  void set_title(const QString& title);
  QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  QRectF bounds_;
  QString title_text_;
  QStaticText title_;
  QColor fill_;
  QColor border_;
  QColor text_;
  bool hatched_ = false;
};

}  // namespace fxscope::views
