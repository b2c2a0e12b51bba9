#pragma once
// The zoomed-out canvas of a big graph as one picture: drawn once from the scene, then every
// frame that shows the graph smaller than the picture is one scaled image draw instead of
// painting ten thousand items a few pixels each (about 40 ms a frame on the 4,969-node LLaMA).

#include <QImage>
#include <QRectF>

class QGraphicsScene;
class QPainter;

namespace fxscope::views {

class CanvasOverview {
 public:
  // Below this many items the scene paints fast enough, and stays crisp.
  static constexpr int kMinItems = 3000;

  // Forgets the picture (the scene's items changed).
  void invalidate() {
    image_ = QImage();
    big_ = -1;
  }
  // True when SCENE is big and ZOOM (view pixels per scene unit) needs no more detail than the
  // picture has; the picture is drawn here on first need.
  bool covers(double zoom, QGraphicsScene& scene);
  // Draws the picture now if SCENE is big, so that the first zoomed-out frame does not.
  void prepare(QGraphicsScene& scene);
  // Draws the picture; PAINTER is in scene coordinates.
  void paint(QPainter& painter) const;
  bool ready() const { return !image_.isNull(); }
  // Selected items are in the picture as drawn at the time; a new selection makes it stale.
  bool has_selection() const { return has_selection_; }

 private:
  void render(QGraphicsScene& scene);

  QImage image_;
  QRectF source_;
  double scale_ = 0;  // image pixels per scene unit
  bool has_selection_ = false;
  // Whether the scene has kMinItems items, -1 until counted: items() copies the whole list, too
  // slow to call on every frame.
  int big_ = -1;
};

}  // namespace fxscope::views
