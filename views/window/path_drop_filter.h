#pragma once
// Drag and drop onto the window: a dropped local file or directory is a path to open. An event
// filter, so the window's own class needs no drag handlers; children that take drops themselves
// (text fields) keep them.

#include <QObject>

class QWidget;

namespace fxscope::views {

class PathDropFilter : public QObject {
  Q_OBJECT

 public:
  // Makes TARGET accept drops and watches them.
  explicit PathDropFilter(QWidget* target);

 signals:
  void dropped(const QString& path);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace fxscope::views
