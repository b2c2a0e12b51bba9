#include "canvas/cut_item.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <algorithm>

namespace fxscope::views {
namespace {

constexpr double kGap = 36;  // between the graph and the cut line
constexpr double kStubGap = 18;
constexpr double kStubHeight = 34;
constexpr double kMinWidth = 420;
constexpr double kMaxTextWidth = 1100;
constexpr int kCutTextPixels = 13;

const QFont& cut_font() {
  static const QFont font = [] {
    QFont f;
    f.setPixelSize(kCutTextPixels);
    f.setBold(true);
    return f;
  }();
  return font;
}

const QPen& cut_pen() {
  static const QPen pen(QColor(200, 40, 30), 2.5, Qt::DashLine);
  return pen;
}

const QPen& stub_pen() {
  static const QPen pen(QColor(120, 120, 130), 1.5, Qt::DashLine);
  return pen;
}

}  // namespace

CutItem::CutItem(const UnitCut& cut, const QRectF& graph)
    : reason_text_(QString::fromStdString(cut.reason)) {
  const QFontMetricsF metrics(cut_font());
  const QString neighbour =
      cut.below
          ? (cut.neighbour.empty() ? QObject::tr("the code after the break ran in eager Python")
                                   : QObject::tr("continues in %1").arg(cut.neighbour.c_str()))
          : QObject::tr("resumes %1").arg(cut.neighbour.c_str());
  // The line spans the graph, or the reason where that is wider (a small graph, a long reason).
  const double text_width = std::min(
      kMaxTextWidth,
      std::max(metrics.horizontalAdvance(reason_text_), metrics.horizontalAdvance(neighbour) + 24));
  const double width = std::max({graph.width(), kMinWidth, text_width});
  const double left = graph.center().x() - width / 2;
  reason_.setText(metrics.elidedText(reason_text_, Qt::ElideRight, text_width));
  neighbour_.setText(metrics.elidedText(neighbour, Qt::ElideRight, text_width - 24));
  for (QStaticText* text : {&reason_, &neighbour_}) {
    text->setTextFormat(Qt::PlainText);
    text->prepare(QTransform(), cut_font());
  }
  const double text_height = metrics.height();
  const double stub_width = std::min(neighbour_.size().width() + 24, width);
  if (cut.below) {
    const double y = graph.bottom() + kGap;
    line_ = QLineF(left, y, left + width, y);
    reason_at_ = QPointF(graph.center().x() - reason_.size().width() / 2, y - text_height - 4);
    stub_ = QRectF(graph.center().x() - stub_width / 2, y + kStubGap, stub_width, kStubHeight);
  } else {
    const double y = graph.top() - kGap;
    line_ = QLineF(left, y, left + width, y);
    reason_at_ = QPointF(graph.center().x() - reason_.size().width() / 2, y + 4);
    stub_ = QRectF(graph.center().x() - stub_width / 2, y - kStubGap - kStubHeight, stub_width,
                   kStubHeight);
  }
  bounds_ = QRectF(line_.p1(), line_.p2())
                .normalized()
                .united(stub_)
                .united(QRectF(reason_at_, reason_.size()))
                .adjusted(-4, -4, 4, 4);
  setToolTip(reason_text_);
}

void CutItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  // Few items and big text: always drawn whole, so the break stays visible in a fitted view.
  painter->setRenderHint(QPainter::Antialiasing, true);
  painter->setPen(cut_pen());
  painter->drawLine(line_);
  painter->setPen(stub_pen());
  painter->setBrush(QColor(245, 245, 248));
  painter->drawRoundedRect(stub_, 6, 6);
  painter->setFont(cut_font());
  painter->setPen(QColor(150, 30, 20));
  painter->drawStaticText(reason_at_, reason_);
  painter->setPen(QColor(80, 80, 90));
  painter->drawStaticText(QPointF(stub_.center().x() - neighbour_.size().width() / 2,
                                  stub_.center().y() - neighbour_.size().height() / 2),
                          neighbour_);
}

}  // namespace fxscope::views
