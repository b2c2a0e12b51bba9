#include "canvas/cluster_item.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <QStyleOptionGraphicsItem>

#include "layout/graph_layout.h"

namespace fxscope::views {
namespace {

constexpr double kTitleLevelOfDetail = 0.45;

const QFont& title_font() {
  static const QFont font = [] {
    QFont f;
    f.setPixelSize(int(kClusterLabelPixels));
    return f;
  }();
  return font;
}

}  // namespace

ClusterItem::ClusterItem(const QRectF& box, const QString& title, QColor fill)
    : bounds_(0, 0, box.width(), box.height()) {
  set_fill(fill, false);
  set_title(title);
  setPos(box.topLeft());
}

void ClusterItem::set_title(const QString& title) {
  if (title == title_text_) return;
  title_text_ = title;
  // Graphviz sizes the title band with its own font metrics, which may differ from ours.
  title_.setText(
      QFontMetricsF(title_font()).elidedText(title, Qt::ElideRight, bounds_.width() - 6));
  title_.setTextFormat(Qt::PlainText);
  title_.prepare(QTransform(), title_font());
  update();
}

void ClusterItem::set_fill(QColor fill, bool hatched) {
  fill_ = fill.lighter(104);
  border_ = fill.darker(135);
  // Dark title on light fills, white on the hot end of the heat scale.
  text_ = fill.lightnessF() > 0.55 ? fill.darker(250) : QColor(Qt::white);
  hatched_ = hatched;
  update();
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->setRenderHint(QPainter::Antialiasing, false);  // axis-aligned: nothing to smooth
  if (lod < kTitleLevelOfDetail) {
    painter->fillRect(bounds_, fill_);
    if (hatched_) painter->fillRect(bounds_, QBrush(border_, Qt::BDiagPattern));
    return;
  }
  painter->setPen(hatched_ ? QPen(border_, 1.5, Qt::DashLine) : QPen(border_));
  painter->setBrush(fill_);
  painter->drawRect(bounds_.adjusted(0.5, 0.5, -0.5, -0.5));
  if (hatched_) painter->fillRect(bounds_, QBrush(border_, Qt::BDiagPattern));
  painter->setFont(title_font());
  painter->setPen(text_);
  painter->drawStaticText(QPointF(4, 1), title_);
}

}  // namespace fxscope::views
