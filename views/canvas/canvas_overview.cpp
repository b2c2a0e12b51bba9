#include "canvas/canvas_overview.h"

#include <QGraphicsScene>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace fxscope::views {
namespace {

// 4096 px on the long side and 16 M pixels (64 MB) at most; enough that the picture is used up
// to the zoom where the items draw their text again.
constexpr double kMaxSide = 4096;
constexpr double kMaxPixels = 16.0 * 1024 * 1024;

}  // namespace

bool CanvasOverview::covers(double zoom, QGraphicsScene& scene) {
  const QRectF rect = scene.sceneRect();
  if (big_ < 0) big_ = scene.items().size() >= kMinItems ? 1 : 0;
  if (rect.isEmpty() || big_ == 0) return false;
  const double scale = std::min({kMaxSide / rect.width(), kMaxSide / rect.height(),
                                 std::sqrt(kMaxPixels / (rect.width() * rect.height()))});
  if (zoom > scale) return false;
  if (image_.isNull() || source_ != rect) render(scene);
  return !image_.isNull();
}

void CanvasOverview::prepare(QGraphicsScene& scene) {
  if (big_ < 0) big_ = scene.items().size() >= kMinItems ? 1 : 0;
  if (big_ == 1 && !scene.sceneRect().isEmpty() && image_.isNull()) render(scene);
}

void CanvasOverview::render(QGraphicsScene& scene) {
  source_ = scene.sceneRect();
  has_selection_ = !scene.selectedItems().isEmpty();
  scale_ = std::min({kMaxSide / source_.width(), kMaxSide / source_.height(),
                     std::sqrt(kMaxPixels / (source_.width() * source_.height()))});
  const QSize size(std::max(1, int(std::ceil(source_.width() * scale_))),
                   std::max(1, int(std::ceil(source_.height() * scale_))));
  image_ = QImage(size, QImage::Format_RGB32);
  if (image_.isNull()) return;  // out of memory: the items paint themselves
  image_.fill(scene.backgroundBrush().color());
  QPainter painter(&image_);
  // The items pick their level of detail from this transform, as they would in the view.
  scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), source_, Qt::IgnoreAspectRatio);
}

void CanvasOverview::paint(QPainter& painter) const {
  painter.setRenderHint(QPainter::SmoothPixmapTransform, true);
  painter.drawImage(source_, image_);
}

}  // namespace fxscope::views
