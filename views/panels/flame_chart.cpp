#include "panels/flame_chart.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <utility>

namespace fxscope::views {
namespace {

constexpr double kRowHeight = 22;
constexpr double kMargin = 4;
constexpr double kGap = 6;  // between compiles side by side

// Colour by the layer of the stack a phase belongs to, so a glance tells tracing from
// AOTAutograd from Inductor from Triton and autotuning.
enum Category { kDynamo, kAot, kInductor, kTriton, kAutotune, kOther, kRoot };

int category_of(const std::string& name, int depth) {
  if (depth == 0) return kRoot;
  const auto has = [&name](const char* part) { return name.find(part) != std::string::npos; };
  if (has("autotun") || has("benchmark") || has("select_algorithm") || has("template")) {
    return kAutotune;
  }
  if (has("precompile") || has("triton") || has("async_compile")) return kTriton;
  if (has("aot") || has("autograd") || has("partition") || has("joint")) return kAot;
  if (has("dynamo") || has("bytecode") || has("compile_attempt") || has("guard")) return kDynamo;
  if (has("inductor") || has("Lowering") || has("compile_fx") || has("codegen") ||
      has("Scheduler") || has("fx_graph") || has("pass")) {
    return kInductor;
  }
  return kOther;
}

QColor colour_of(int category) {
  switch (category) {
    case kDynamo:
      return {0x8d, 0xb6, 0xe8};
    case kAot:
      return {0xb9, 0xa3, 0xe3};
    case kInductor:
      return {0xf2, 0xb6, 0x6d};
    case kTriton:
      return {0xe8, 0x8a, 0x7f};
    case kAutotune:
      return {0x97, 0xd0, 0x8f};
    case kRoot:
      return {0xc8, 0xc8, 0xc8};
    default:
      return {0xdd, 0xd6, 0xc1};
  }
}

QString seconds(double s) {
  return s >= 1 ? QStringLiteral("%1 s").arg(s, 0, 'f', 3)
                : QStringLiteral("%1 ms").arg(s * 1000, 0, 'f', 1);
}

}  // namespace

FlameChart::FlameChart(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("flame_chart"));
  setMouseTracking(true);
  setMinimumHeight(120);
}

void FlameChart::set_compiles(std::vector<Compile> compiles) {
  compiles_ = std::move(compiles);
  lay_out();
  // Every row shown without scrolling, up to a deep max-autotune stack.
  setMinimumHeight(std::min(sizeHint().height(), 420));
  updateGeometry();
  update();
}

QSize FlameChart::sizeHint() const {
  return {600, static_cast<int>(2 * kMargin + (depth_ + 2) * kRowHeight)};
}

void FlameChart::lay_out() {
  blocks_.clear();
  depth_ = 0;
  double total_s = 0;
  for (const auto& c : compiles_) total_s += c.tree->events_s;
  if (total_s <= 0) return;
  const double gaps = kGap * static_cast<double>(compiles_.size() - 1);
  const double span = std::max(1.0, width() - 2 * kMargin - gaps);
  const double scale = span / total_s;
  double left = kMargin;
  for (const auto& c : compiles_) {
    // Children start where their parent starts: cursor[d] is where the next phase of depth d
    // goes, reset to the parent's left edge when a phase of depth d - 1 is placed.
    std::vector<double> cursor(1, left);
    for (const auto& p : c.tree->phases) {
      const auto d = static_cast<std::size_t>(p.depth);
      if (cursor.size() < d + 2) cursor.resize(d + 2, left);
      const double x = cursor[d];
      const double w = p.total_s * scale;
      cursor[d] += w;
      cursor[d + 1] = x;
      depth_ = std::max(depth_, p.depth);
      Block b;
      b.rect = QRectF(x, kMargin + kRowHeight * (p.depth + 1), std::max(w, 0.5), kRowHeight - 1);
      b.category = category_of(p.name, p.depth);
      const QString name = QString::fromStdString(p.name);
      b.label = p.depth == 0 ? c.title + QStringLiteral("  ") + seconds(p.total_s) : name;
      b.tooltip = QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped());
      if (!p.what.empty()) {
        b.tooltip += QStringLiteral("<br>%1").arg(QString::fromStdString(p.what).toHtmlEscaped());
      }
      b.tooltip +=
          QStringLiteral("<br>%1 in all, %2 its own").arg(seconds(p.total_s), seconds(p.self_s));
      if (p.count > 1) b.tooltip += QStringLiteral(", %1 times").arg(p.count);
      blocks_.push_back(std::move(b));
    }
    left += c.tree->events_s * scale + kGap;
  }
}

void FlameChart::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().base());
  if (blocks_.empty()) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter, tr("No timed compile events in this log."));
    return;
  }
  painter.setPen(palette().color(QPalette::Text));
  painter.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, kRowHeight - 2),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   tr("Compile time by phase (hover for details); width is time, rows nest"));
  const QFontMetrics metrics(font());
  for (const auto& b : blocks_) {
    painter.fillRect(b.rect, colour_of(b.category));
    painter.setPen(palette().color(QPalette::Base));
    painter.drawRect(b.rect);
    if (b.rect.width() < 24) continue;
    painter.setPen(Qt::black);
    const QRectF text = b.rect.adjusted(3, 0, -3, 0);
    painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(b.label, Qt::ElideRight, static_cast<int>(text.width())));
  }
}

void FlameChart::resizeEvent(QResizeEvent* /*event*/) {
  lay_out();
}

void FlameChart::mouseMoveEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  const auto hit = std::find_if(blocks_.begin(), blocks_.end(),
                                [&at](const Block& b) { return b.rect.contains(at); });
  if (hit == blocks_.end()) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(event->globalPosition().toPoint(), hit->tooltip, this);
}

}  // namespace fxscope::views
