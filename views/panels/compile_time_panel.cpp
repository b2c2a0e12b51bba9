#include "panels/compile_time_panel.h"

#include <QFontDatabase>
#include <QPlainTextEdit>
#include <utility>

#include "fxscope/report/compile_time_text.h"
#include "models/compile_units_model.h"
#include "panels/flame_chart.h"

namespace fxscope::views {
namespace {

void add_trees(std::vector<FlameChart::Compile>& out, const report::UnitCompileTime& unit) {
  const QString id = QString::fromStdString(unit.compile_id);
  if (unit.forward) out.push_back({QStringLiteral("[%1] forward").arg(id), &*unit.forward});
  if (unit.backward) out.push_back({QStringLiteral("[%1] backward").arg(id), &*unit.backward});
}

}  // namespace

CompileTimePanel::CompileTimePanel(QWidget* parent) : QSplitter(Qt::Vertical, parent) {
  setObjectName(QStringLiteral("compile_time_panel"));
  chart_ = new FlameChart(this);
  text_ = new QPlainTextEdit(this);
  text_->setObjectName(QStringLiteral("compile_time_text"));
  text_->setReadOnly(true);
  text_->setLineWrapMode(QPlainTextEdit::NoWrap);
  text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  text_->setPlaceholderText(tr("Open a TORCH_TRACE log to see where its compile time went."));
  addWidget(chart_);
  addWidget(text_);
  setStretchFactor(0, 1);
  setStretchFactor(1, 2);
}

void CompileTimePanel::set_log(LoadedLogPtr log) {
  log_ = std::move(log);
  show_row({});
}

void CompileTimePanel::show_row(const QModelIndex& index) {
  if (!log_) {
    chart_->set_compiles({});
    text_->clear();
    return;
  }
  const auto& report = log_->compile_time;
  std::vector<FlameChart::Compile> compiles;
  const QVariant unit = index.data(CompileUnitsModel::kUnitRole);
  if (unit.isValid()) {
    // Units are matched by compile id: the summary and the report both name them so.
    const auto& id = log_->summary.units.at(unit.value<qulonglong>()).compile_id;
    for (const auto& u : report.units) {
      if (u.compile_id != id) continue;
      add_trees(compiles, u);
      chart_->set_compiles(std::move(compiles));
      text_->setPlainText(QString::fromStdString(report::to_text(u)));
      return;
    }
    chart_->set_compiles({});
    text_->setPlainText(
        tr("[%1] has no timed compile in the log.").arg(QString::fromStdString(id)));
    return;
  }
  for (const auto& u : report.units) add_trees(compiles, u);
  chart_->set_compiles(std::move(compiles));
  text_->setPlainText(QString::fromStdString(report::to_text(report)));
}

}  // namespace fxscope::views
