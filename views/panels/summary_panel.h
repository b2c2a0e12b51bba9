#pragma once
// The centre of the window: the summary text of what is selected in the compile units tree.

#include <QPlainTextEdit>

#include "window/loaded_log.h"

namespace fxscope::views {

// Read-only and monospaced, so the aligned columns of the text stay aligned; with nothing
// selected it shows the whole log's summary, so it is never empty once a log is open.
class SummaryPanel : public QPlainTextEdit {
  Q_OBJECT

 public:
  explicit SummaryPanel(QWidget* parent = nullptr);

  void set_log(LoadedLogPtr log);
  // Shows the unit or frame of a row of CompileUnitsModel; an invalid index shows the log.
  void show_row(const QModelIndex& index);

 private:
  LoadedLogPtr log_;
};

}  // namespace fxscope::views
