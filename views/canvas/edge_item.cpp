#include "canvas/edge_item.h"

#include <QPainter>
#include <QPen>
#include <QStyleOptionGraphicsItem>

namespace fxscope::views {
namespace {

constexpr double kCurveLevelOfDetail = 0.3;
constexpr double kArrowLength = 7;
constexpr double kArrowAngle = 25;

const QPen& edge_pen() {
  static const QPen pen(QColor(120, 120, 135), 1.0);
  return pen;
}

}  // namespace

EdgeItem::EdgeItem(const std::vector<QPointF>& p) : path_(p[0]), chord_(p.front(), p.back()) {
  for (std::size_t i = 1; i + 2 < p.size(); i += 3) path_.cubicTo(p[i], p[i + 1], p[i + 2]);
  // The arrow head points along the last segment; its last control point may equal the tip.
  const QPointF tip = p.back();
  QPointF back = p[p.size() - 2];
  if (back == tip) back = p[p.size() - 3];
  const double angle = QLineF(tip, back).angle();
  path_.moveTo(tip);
  path_.lineTo(QLineF::fromPolar(kArrowLength, angle + kArrowAngle).translated(tip).p2());
  path_.moveTo(tip);
  path_.lineTo(QLineF::fromPolar(kArrowLength, angle - kArrowAngle).translated(tip).p2());
  bounds_ = path_.controlPointRect().adjusted(-1, -1, 1, 1);
}

void EdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  painter->setPen(edge_pen());
  // Every item sets the hints it needs: the view does not save painter state between items.
  const bool far =
      option->levelOfDetailFromTransform(painter->worldTransform()) < kCurveLevelOfDetail;
  painter->setRenderHint(QPainter::Antialiasing, !far);
  if (far) {
    painter->drawLine(chord_);
    return;
  }
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path_);
}

}  // namespace fxscope::views
