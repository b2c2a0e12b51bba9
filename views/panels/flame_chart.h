#pragma once
// Where a compile's time went, drawn as a flame graph: one row per nesting depth, each phase as
// wide as its time, its timed sub-phases under it from the left (largest first, as the
// report orders siblings). Several compiles (a unit's forward and backward, or every unit of
// the log) sit side by side on one time scale.

#include <QString>
#include <QWidget>
#include <vector>

#include "fxscope/report/compile_time.h"

namespace fxscope::views {

class FlameChart : public QWidget {
  Q_OBJECT

 public:
  explicit FlameChart(QWidget* parent = nullptr);

  struct Compile {
    QString title;                            // "[0/0] forward"
    const report::PhaseTree* tree = nullptr;  // owned by the caller, alive while shown
  };
  void set_compiles(std::vector<Compile> compiles);

  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Block {
    QRectF rect;
    QString label;    // drawn inside when it fits
    QString tooltip;  // name, what it does, total and own time
    int category = 0;
  };
  void lay_out();

  std::vector<Compile> compiles_;
  std::vector<Block> blocks_;
  int depth_ = 0;
};

}  // namespace fxscope::views
