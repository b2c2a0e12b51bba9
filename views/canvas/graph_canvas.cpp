#include "canvas/graph_canvas.h"

#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "canvas/change_legend.h"
#include "canvas/graph_scene.h"
#include "canvas/heat_legend.h"
#include "canvas/node_item.h"

namespace fxscope::views {
namespace {

constexpr double kMinZoom = 0.01;
constexpr double kMaxZoom = 4.0;
constexpr double kReadableZoom = 0.6;
constexpr double kMaxFitZoom = 1.25;
constexpr double kMinStartZoom = 0.3;
// One wheel notch (120 units) zooms by 1.2; touchpads send smaller steps, hence the exponent.
constexpr double kZoomPerUnit = 1.0015;
constexpr int kLegendMargin = 8;

}  // namespace

GraphCanvas::GraphCanvas(GraphScene* scene, QWidget* parent)
    : QGraphicsView(scene, parent), scene_(scene) {
  setObjectName(QStringLiteral("graph_canvas"));
  setRenderHint(QPainter::Antialiasing);
  setRenderHint(QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  // Items never draw outside their bounding rects and restore the painter themselves.
  setOptimizationFlags(QGraphicsView::DontSavePainterState |
                       QGraphicsView::DontAdjustForAntialiasing);
  // A child of the view, not of its viewport: the viewport's children move when it scrolls.
  legend_ = new HeatLegend(this);
  legend_->hide();
  change_legend_ = new ChangeLegend(this);
  change_legend_->hide();
  connect(scene_, &GraphScene::content_changed, this, [this] {
    overview_.invalidate();
    // Once the new graph is on screen, while the user looks at it rather than mid-zoom.
    QTimer::singleShot(0, this, [this] { overview_.prepare(*scene_); });
  });
  connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
    if (overview_.has_selection()) overview_.invalidate();
    if (const auto id = scene_->selected_node()) emit node_selected(*id);
  });
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if (delta == 0) return QGraphicsView::wheelEvent(event);
  auto_fit_ = false;
  zoom_by(std::pow(kZoomPerUnit, delta));
  event->accept();
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  auto_fit_ = false;
  QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::place_legend() {
  const QRect area = viewport()->geometry();
  legend_->move(area.left() + kLegendMargin, area.bottom() - legend_->height() - kLegendMargin);
  legend_->raise();
  change_legend_->move(area.right() - change_legend_->width() - kLegendMargin,
                       area.top() + kLegendMargin);
  change_legend_->raise();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  place_legend();
  if (auto_fit_) fit_to_view();
}

// Zoomed out on a big graph, the frame is the overview picture plus the selection on top; the
// selection is drawn live, so selecting never redraws the picture.
void GraphCanvas::paintEvent(QPaintEvent* event) {
  drew_overview_ = overview_.covers(zoom(), *scene_);
  if (!drew_overview_) {
    QGraphicsView::paintEvent(event);
    return;
  }
  QPainter painter(viewport());
  painter.fillRect(event->rect(), scene_->backgroundBrush());
  painter.setTransform(viewportTransform());
  overview_.paint(painter);
  static const QColor selected(220, 90, 0);
  for (const QGraphicsItem* item : scene_->selectedItems()) {
    const QRectF box = item->sceneBoundingRect();
    // At least 4 pixels, so a selected node is visible however far out the view is.
    const double grow = std::max(0.0, 2.0 / zoom() - box.width() / 2);
    painter.fillRect(box.adjusted(-grow, -grow, grow, grow), selected);
  }
}

void GraphCanvas::zoom_by(double factor) {
  const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
  scale(target / zoom(), target / zoom());
}

void GraphCanvas::fit_to_view() {
  auto_fit_ = true;
  if (scene_->sceneRect().isEmpty()) return;
  resetTransform();
  fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  // A small graph is not blown up beyond its natural size.
  if (zoom() > kMaxFitZoom) {
    resetTransform();
    scale(kMaxFitZoom, kMaxFitZoom);
  }
  centerOn(scene_->sceneRect().center());
}

void GraphCanvas::show_start() {
  fit_to_view();
  if (zoom() >= kMinStartZoom || scene_->sceneRect().isEmpty()) return;
  auto_fit_ = false;
  zoom_by(kReadableZoom / zoom());
  const QRectF rect = scene_->sceneRect();
  const double half_height = viewport()->height() / 2.0 / zoom();
  // Wide graphs can be empty above the scene's centre: start over the first inputs instead.
  centerOn(scene_->start_point().x(), rect.top() + half_height);
}

void GraphCanvas::focus_node(graph::NodeId id) {
  NodeItem* item = scene_->select_node(id);
  if (item == nullptr) return;
  // A node already readable and in view stays where it is, so the view does not jump under
  // the user (and a fitted view stays fitted).
  const QRectF visible = mapToScene(viewport()->rect()).boundingRect();
  if (zoom() >= kReadableZoom && visible.contains(item->sceneBoundingRect())) return;
  auto_fit_ = false;
  if (zoom() < kReadableZoom) zoom_by(kReadableZoom / zoom());
  centerOn(item);
}

}  // namespace fxscope::views
