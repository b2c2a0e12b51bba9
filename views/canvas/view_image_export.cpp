#include "canvas/view_image_export.h"

#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

#include "canvas/graph_canvas.h"
#include "canvas/graph_scene.h"
#include "canvas/heat_legend.h"
#include "panels/graph_panel.h"

namespace fxscope::views {
namespace {

constexpr int kMargin = 16;

QRectF drawn_area(const GraphPanel& panel) {
  return panel.scene().itemsBoundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
}

// Paints the scene's AREA into TARGET, then the legend (when it is shown on the canvas) over
// the top-left corner, where the graph's first inputs leave room.
void paint_view(const GraphPanel& panel, QPainter& painter, const QRectF& target,
                const QRectF& area) {
  painter.fillRect(target, Qt::white);
  panel.scene().render(&painter, target, area, Qt::KeepAspectRatio);
  HeatLegend& legend = panel.canvas().legend();
  if (!legend.isVisibleTo(&panel.canvas())) return;
  painter.save();
  painter.translate(target.topLeft() + QPointF(kMargin, kMargin));
  legend.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  painter.restore();
}

QString nothing_shown(const GraphPanel& panel) {
  const CanvasGraphPtr& graph = panel.shown();
  if (!graph) return QObject::tr("no graph is shown");
  if (!graph->problem.empty()) return QString::fromStdString(graph->problem);
  return {};
}

}  // namespace

QString export_view_svg(const GraphPanel& panel, const QString& path) {
  if (QString problem = nothing_shown(panel); !problem.isEmpty()) return problem;
  const QRectF area = drawn_area(panel);
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(area.size().toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), area.size()));
  svg.setTitle(QString::fromStdString(panel.shown()->where));
  svg.setDescription(QObject::tr("fxscope graph export"));
  QPainter painter;
  if (!painter.begin(&svg)) return QObject::tr("%1: cannot write the SVG").arg(path);
  paint_view(panel, painter, QRectF(QPointF(0, 0), area.size()), area);
  painter.end();
  return {};
}

QString export_view_png(const GraphPanel& panel, const QString& path) {
  if (QString problem = nothing_shown(panel); !problem.isEmpty()) return problem;
  const QRectF area = drawn_area(panel);
  const double scale =
      std::min({1.0, kMaxPngSide / std::max(area.width(), area.height()),
                std::sqrt(kMaxPngPixels / std::max(1.0, area.width() * area.height()))});
  QImage image((area.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return QObject::tr("%1: the image is too large to allocate").arg(path);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setRenderHint(QPainter::TextAntialiasing);
  paint_view(panel, painter, QRectF(QPointF(0, 0), area.size() * scale), area);
  painter.end();
  if (!image.save(path, "PNG")) return QObject::tr("%1: cannot write the PNG").arg(path);
  return {};
}

}  // namespace fxscope::views
