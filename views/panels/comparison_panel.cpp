#include "panels/comparison_panel.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "models/comparison_summary_model.h"
#include "models/unit_comparison_model.h"

namespace fxscope::views {
namespace {

QTableView* make_table(QAbstractItemModel* model, const QString& name, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(model);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->horizontalHeader()->setStretchLastSection(true);
  return view;
}

}  // namespace

ComparisonPanel::ComparisonPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("comparison_panel"));
  verdict_ = new QLabel(this);
  verdict_->setObjectName(QStringLiteral("comparison_verdict"));
  verdict_->setWordWrap(true);
  verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  paths_ = new QLabel(this);
  paths_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  paths_->hide();
  summary_ = new ComparisonSummaryModel(this);
  units_ = new UnitComparisonModel(this);
  summary_view_ = make_table(summary_, QStringLiteral("comparison_summary"), this);
  summary_view_->horizontalHeader()->setStretchLastSection(false);
  units_view_ = make_table(units_, QStringLiteral("comparison_units"), this);
  details_ = new QPlainTextEdit(this);
  details_->setObjectName(QStringLiteral("comparison_details"));
  details_->setReadOnly(true);
  details_->setLineWrapMode(QPlainTextEdit::NoWrap);
  details_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

  // The summary keeps its columns readable; the units and the full text share the rest.
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("comparison_tabs"));
  tabs_->setDocumentMode(true);
  tabs_->addTab(units_view_, tr("Units"));
  tabs_->addTab(details_, tr("Diff text"));
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(summary_view_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(verdict_);
  layout->addWidget(paths_);
  layout->addWidget(splitter, 1);
  connect(units_view_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const QString id = units_->before_id(index.row());
    if (!id.isEmpty()) emit unit_chosen(id);
  });
  set_comparison(nullptr);
}

void ComparisonPanel::set_comparison(const ComparisonPtr& comparison) {
  summary_->set_comparison(comparison);
  units_->set_comparison(comparison);
  const bool shown = comparison != nullptr;
  summary_view_->setVisible(shown);
  tabs_->setVisible(shown);
  paths_->setVisible(shown);
  if (!shown) {
    verdict_->setText(
        tr("File > Compare with... opens a second log of the same program: this tab "
           "then shows what changed, before (the open log) beside after."));
    verdict_->setStyleSheet({});
    details_->clear();
    return;
  }
  const report::RunDiff& d = comparison->diff;
  // Unrelated programs are said first and in red: little of what follows pairs up.
  verdict_->setText(QString::fromStdString(comparison->verdict));
  verdict_->setStyleSheet(d.unrelated() ? QStringLiteral("QLabel { color: #9c1c12; font-weight: "
                                                         "bold; }")
                                        : QStringLiteral("QLabel { font-weight: bold; }"));
  paths_->setText(tr("Before (A, the open log): %1    After (B): %2")
                      .arg(QFileInfo(QString::fromStdString(d.a_path)).fileName(),
                           QFileInfo(QString::fromStdString(d.b_path)).fileName()));
  paths_->setToolTip(QString::fromStdString(d.a_path + "\n" + d.b_path));
  details_->setPlainText(QString::fromStdString(comparison->details));
  // Every column of the summary in view: its before, after and change are what it is for.
  summary_view_->resizeColumnsToContents();
  int width =
      2 * summary_view_->frameWidth() + summary_view_->verticalScrollBar()->sizeHint().width();
  for (int c = 0; c < summary_->columnCount(); ++c) width += summary_view_->columnWidth(c);
  summary_view_->setMinimumWidth(width);
}

QString ComparisonPanel::verdict_text() const {
  return verdict_->text();
}

QString ComparisonPanel::details_text() const {
  return details_->toPlainText();
}

}  // namespace fxscope::views
