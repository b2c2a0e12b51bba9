#include "cluster_item.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include "graph_layout.h"

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
    : bounds_(0, 0, box.width(), box.height()),
      // Graphviz sizes the title band with its own font metrics, which may differ from ours.
      title_(QFontMetricsF(title_font()).elidedText(title, Qt::ElideRight, box.width() - 6)),
      fill_(fill.lighter(104)),
      border_(fill.darker(135)),
      text_(fill.darker(250)) {
  setPos(box.topLeft());
  title_.setTextFormat(Qt::PlainText);
  title_.prepare(QTransform(), title_font());
}

void ClusterItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->setRenderHint(QPainter::Antialiasing, false);  // axis-aligned: nothing to smooth
  if (lod < kTitleLevelOfDetail) {
    painter->fillRect(bounds_, fill_);
    return;
  }
  painter->setPen(border_);
  painter->setBrush(fill_);
  painter->drawRect(bounds_.adjusted(0.5, 0.5, -0.5, -0.5));
  painter->setFont(title_font());
  painter->setPen(text_);
  painter->drawStaticText(QPointF(4, 1), title_);
}

}  // namespace fxscope::views
