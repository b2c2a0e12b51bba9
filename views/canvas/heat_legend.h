#pragma once
// The heat scale's legend over the canvas's bottom-left corner: the colour ramp from 0 to the
// hottest group's time, what the times are (measured on which device and mode, or predicted)
// and the hatching that marks a predicted group among measured ones.

#include <QString>
#include <QWidget>

namespace fxscope::views {

class HeatLegend : public QWidget {
  Q_OBJECT

 public:
  explicit HeatLegend(QWidget* parent = nullptr);

  void set_scale(double max_us, const QString& source, bool shows_hatching);
  double max_us() const { return max_us_; }
  QString source() const { return source_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  double max_us_ = 0;
  QString source_;
  bool hatching_ = false;
};

}  // namespace fxscope::views
