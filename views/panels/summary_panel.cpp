#include "panels/summary_panel.h"

#include <QFontDatabase>
#include <utility>

#include "models/compile_units_model.h"
#include "text/summary_text.h"

namespace fxscope::views {

SummaryPanel::SummaryPanel(QWidget* parent) : QPlainTextEdit(parent) {
  setObjectName(QStringLiteral("summary_panel"));
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::WidgetWidth);
  setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setPlaceholderText(tr("Open a TORCH_TRACE log file or directory with File > Open."));
}

void SummaryPanel::set_log(LoadedLogPtr log) {
  log_ = std::move(log);
  show_row({});
}

void SummaryPanel::show_row(const QModelIndex& index) {
  if (!log_) {
    clear();
    return;
  }
  const QVariant unit = index.data(CompileUnitsModel::kUnitRole);
  const QVariant frame = index.data(CompileUnitsModel::kFrameRole);
  if (unit.isValid()) {
    setPlainText(unit_summary_text(log_->summary, unit.value<qulonglong>()));
  } else if (frame.isValid()) {
    setPlainText(frame_summary_text(log_->summary, frame.toInt()));
  } else {
    setPlainText(log_summary_text(log_->summary));
  }
}

}  // namespace fxscope::views
