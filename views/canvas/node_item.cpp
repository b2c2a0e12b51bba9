#include "canvas/node_item.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <QStyleOptionGraphicsItem>

namespace fxscope::views {
namespace {

// Below this scale the text is under about 5 pixels high: unreadable, and the costliest part.
constexpr double kTextLevelOfDetail = 0.45;
constexpr double kRadius = 6;
constexpr int kTextPixels = 11;
constexpr double kTextPadding = 4;

const QFont& node_font() {
  static const QFont font = [] {
    QFont f;
    f.setPixelSize(kTextPixels);
    return f;
  }();
  return font;
}

// Made once: a QPen or QColor built in paint() would allocate on every frame.
const QPen& border_pen(bool selected) {
  static const QPen normal(QColor(90, 90, 100), 1.0);
  static const QPen highlighted(QColor(220, 90, 0), 2.5);
  return selected ? highlighted : normal;
}

const QPen& shape_pen() {
  static const QPen pen(QColor(70, 70, 90));
  return pen;
}

// Long names (Dynamo's L_self_modules_..._weight_) are cut in the middle to fit the box; the
// tooltip and the inspector keep them whole.
QString elided(const QString& text, double width) {
  return QFontMetricsF(node_font()).elidedText(text, Qt::ElideMiddle, width - 2 * kTextPadding);
}

}  // namespace

NodeItem::NodeItem(graph::NodeId id, const QRectF& box, const QString& op, const QString& shape,
                   QColor fill)
    : id_(id),
      bounds_(0, 0, box.width(), box.height()),
      op_(elided(op, box.width())),
      shape_(elided(shape, box.width())),
      fill_(fill),
      has_shape_(!shape.isEmpty()) {
  setPos(box.topLeft());
  setFlag(ItemIsSelectable);
  setToolTip(shape.isEmpty() ? op : op + QLatin1Char('\n') + shape);
  // Laid out once here, so that paint() draws cached glyphs.
  op_.setTextFormat(Qt::PlainText);
  shape_.setTextFormat(Qt::PlainText);
  op_.prepare(QTransform(), node_font());
  shape_.prepare(QTransform(), node_font());
}

void NodeItem::set_fill(QColor fill) {
  if (fill == fill_) return;
  fill_ = fill;
  update();
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const bool selected = isSelected();
  // Every item sets the hints it needs: the view does not save painter state between items.
  painter->setRenderHint(QPainter::Antialiasing, lod >= kTextLevelOfDetail);
  if (lod < kTextLevelOfDetail) {
    painter->fillRect(bounds_, selected ? border_pen(true).color() : fill_);
    return;
  }
  painter->setPen(border_pen(selected));
  painter->setBrush(fill_);
  painter->drawRoundedRect(bounds_.adjusted(0.5, 0.5, -0.5, -0.5), kRadius, kRadius);
  painter->setFont(node_font());
  painter->setPen(Qt::black);
  const double half = bounds_.height() / 2;
  painter->drawStaticText(QPointF((bounds_.width() - op_.size().width()) / 2,
                                  !has_shape_ ? half - op_.size().height() / 2 : 3),
                          op_);
  if (has_shape_) {
    painter->setPen(shape_pen());
    painter->drawStaticText(QPointF((bounds_.width() - shape_.size().width()) / 2, half + 1),
                            shape_);
  }
}

}  // namespace fxscope::views
