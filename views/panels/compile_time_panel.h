#pragma once
// The Compile tab: where the selected unit's compile time went (or the whole log's, with no unit
// selected) as a flame graph over the text of `fxscope-cli compile-time`.

#include <QSplitter>

#include "window/loaded_log.h"

class QPlainTextEdit;

namespace fxscope::views {

class FlameChart;

class CompileTimePanel : public QSplitter {
  Q_OBJECT

 public:
  explicit CompileTimePanel(QWidget* parent = nullptr);

  void set_log(LoadedLogPtr log);
  // Shows the unit of a row of CompileUnitsModel; a frame row or an invalid index shows the log.
  void show_row(const QModelIndex& index);

 private:
  LoadedLogPtr log_;
  FlameChart* chart_ = nullptr;
  QPlainTextEdit* text_ = nullptr;
};

}  // namespace fxscope::views
