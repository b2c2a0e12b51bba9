#include "canvas/heat_legend.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

#include "layout/heat_overlay.h"

namespace fxscope::views {
namespace {

constexpr int kPadding = 6;
constexpr int kRampWidth = 180;
constexpr int kRampHeight = 10;
constexpr int kSwatch = 14;

}  // namespace

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("heat_legend"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
}

void HeatLegend::set_scale(double max_us, const QString& source, bool shows_hatching) {
  max_us_ = max_us;
  source_ = source;
  hatching_ = shows_hatching;
  resize(sizeHint());
  update();
}

QSize HeatLegend::sizeHint() const {
  const QFontMetrics metrics(font());
  const int lines = hatching_ ? 4 : 3;
  const int width = std::max(kRampWidth + 60, metrics.horizontalAdvance(source_));
  return {width + 2 * kPadding, lines * metrics.height() + kRampHeight + 2 * kPadding};
}

void HeatLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setPen(QColor(160, 160, 170));
  painter.setBrush(QColor(255, 255, 255, 235));
  painter.drawRect(rect().adjusted(0, 0, -1, -1));
  const QFontMetrics metrics(font());
  const int line = metrics.height();
  int y = kPadding;
  painter.setPen(Qt::black);
  painter.drawText(kPadding, y + metrics.ascent(), tr("Time per kernel group"));
  y += line;
  const QRect bar(kPadding, y, kRampWidth, kRampHeight);
  for (int x = 0; x < kRampWidth; ++x) {
    painter.fillRect(QRect(kPadding + x, y, 1, kRampHeight),
                     heat_color(double(x) / (kRampWidth - 1)));
  }
  painter.setPen(QColor(120, 120, 120));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(bar.adjusted(0, 0, -1, -1));
  y += kRampHeight + 2;
  painter.setPen(Qt::black);
  painter.drawText(kPadding, y + metrics.ascent(), QStringLiteral("0"));
  const QString hottest = tr("%1 µs").arg(max_us_, 0, 'f', 1);
  painter.drawText(kPadding + kRampWidth - metrics.horizontalAdvance(hottest), y + metrics.ascent(),
                   hottest);
  y += line;
  painter.setPen(QColor(60, 60, 70));
  painter.drawText(kPadding, y + metrics.ascent(), source_);
  y += line;
  if (hatching_) {
    const QRect swatch(kPadding, y + (line - kSwatch) / 2, kSwatch, kSwatch);
    painter.fillRect(swatch, heat_color(0.5));
    painter.fillRect(swatch, QBrush(heat_color(0.5).darker(135), Qt::BDiagPattern));
    painter.drawText(kPadding + kSwatch + 4, y + metrics.ascent(),
                     tr("predicted by the cost model: not measured"));
  }
}

}  // namespace fxscope::views
