#include "canvas/change_legend.h"

#include <QFontMetrics>
#include <QPainter>
#include <algorithm>

#include "compare/change_marks.h"

namespace fxscope::views {
namespace {

constexpr int kChangePadding = 6;
constexpr int kChangeSwatch = 14;
constexpr int kChangeSwatchWidth = 96;
// A changed unit can differ in dozens of ops: the legend names a few, the Compare tab all.
constexpr qsizetype kOnlyAfterShown = 4;
constexpr ChangeMark kMarks[] = {ChangeMark::added, ChangeMark::removed, ChangeMark::changed,
                                 ChangeMark::none};

}  // namespace

ChangeLegend::ChangeLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("change_legend"));
  setAttribute(Qt::WA_TransparentForMouseEvents);
}

void ChangeLegend::set_text(const QString& after, const QString& headline,
                            const QStringList& only_after) {
  after_ = after;
  headline_ = headline;
  only_after_ = only_after;
  resize(sizeHint());
  update();
}

QStringList ChangeLegend::lines() const {
  QStringList out{tr("Compared with %1").arg(after_), headline_};
  if (!only_after_.isEmpty()) {
    QStringList shown = only_after_.mid(0, kOnlyAfterShown);
    if (only_after_.size() > kOnlyAfterShown) {
      shown << tr("%1 more").arg(only_after_.size() - kOnlyAfterShown);
    }
    out << tr("only in %1: %2").arg(after_, shown.join(QStringLiteral(", ")));
  }
  return out;
}

QSize ChangeLegend::sizeHint() const {
  const QFontMetrics metrics(font());
  int width = int(std::size(kMarks)) * kChangeSwatchWidth;
  const QStringList text = lines();
  for (const QString& line : text) width = std::max(width, metrics.horizontalAdvance(line));
  return {width + 2 * kChangePadding, int(text.size() + 1) * metrics.height() + 2 * kChangePadding};
}

void ChangeLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setPen(QColor(160, 160, 170));
  painter.setBrush(QColor(255, 255, 255, 235));
  painter.drawRect(rect().adjusted(0, 0, -1, -1));
  const QFontMetrics metrics(font());
  const int line = metrics.height();
  int y = kChangePadding;
  const QStringList text = lines();
  painter.setPen(Qt::black);
  for (const QString& l : text) {
    painter.drawText(kChangePadding, y + metrics.ascent(), l);
    y += line;
  }
  int x = kChangePadding;
  for (ChangeMark mark : kMarks) {
    const QRect swatch(x, y + (line - kChangeSwatch) / 2, kChangeSwatch, kChangeSwatch);
    painter.fillRect(swatch, mark_color(mark));
    painter.setPen(mark_color(mark).darker(140));
    painter.drawRect(swatch.adjusted(0, 0, -1, -1));
    painter.setPen(Qt::black);
    painter.drawText(x + kChangeSwatch + 4, y + metrics.ascent(),
                     mark == ChangeMark::none ? tr("same") : to_text(mark));
    x += kChangeSwatchWidth;
  }
}

}  // namespace fxscope::views
