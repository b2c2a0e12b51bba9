#include "panels/kernels_panel.h"

#include <algorithm>

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "context/view_context.h"
#include "models/kernels_model.h"

namespace fxscope::views {

KernelsPanel::KernelsPanel(ViewContext& context, QWidget* parent)
    : QWidget(parent), context_(context) {
  setObjectName(QStringLiteral("kernels_panel"));
  model_ = new KernelsModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(model_);
  sorted_->setSortRole(KernelsModel::kSortRole);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("kernels_view"));
  table_->setModel(sorted_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(KernelsModel::kPredicted, Qt::DescendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Kernel and group names run to 80 characters: elided in columns of their own width, so the
  // numbers (time, bandwidth, launch shape) stay in view; the full names are in the tooltips.
  for (const int names : {int(KernelsModel::kKernel), int(KernelsModel::kGroup)}) {
    table_->horizontalHeader()->setSectionResizeMode(names, QHeaderView::Interactive);
  }
  table_->horizontalHeader()->setStretchLastSection(true);
  caption_ = new QLabel(this);
  caption_->setObjectName(QStringLiteral("kernels_caption"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(caption_);
  layout->addWidget(table_, 1);
  // The rows follow the graph drawn, not the mode or unit asked for: the canvas plans it.
  for (const auto changed :
       {&ViewContext::log_changed, &ViewContext::graph_changed, &ViewContext::run_changed}) {
    connect(&context_, changed, this, &KernelsPanel::refresh);
  }
  connect(table_, &QTableView::clicked, this, &KernelsPanel::on_clicked);
  connect(table_, &QTableView::activated, this, &KernelsPanel::on_clicked);
  refresh();
}

QString KernelsPanel::caption() const {
  return caption_->text();
}

void KernelsPanel::refresh() {
  const CanvasGraphPtr& graph = context_.graph();
  heat_ = graph ? build_heat_overlay(*graph, context_.run().get()) : HeatOverlay{};
  if (!graph || graph->groups.empty()) {
    model_->set_rows({});
    caption_->setText(tr("No kernels: select a compile unit."));
    return;
  }
  const HeatOverlay& heat = heat_;
  model_->set_rows(kernel_rows(*graph, heat));
  // Hottest first: measured time when there is a run of this graph, else predicted.
  table_->sortByColumn(heat.mode != nullptr ? KernelsModel::kMeasured : KernelsModel::kPredicted,
                       Qt::DescendingOrder);
  QString text =
      tr("%1 in %2: %3 kernel groups; %4")
          .arg(QString::fromStdString(graph->compile_id),
               QString::fromLatin1(fusion::to_string(graph->request.mode).data(),
                                   qsizetype(fusion::to_string(graph->request.mode).size())))
          .arg(graph->groups.size())
          .arg(QString::fromStdString(heat.source()));
  if (!heat.mismatch.empty()) text += QStringLiteral(" (%1)").arg(heat.mismatch.c_str());
  if (!heat.stray_kernels.empty()) {
    text += tr("; %1 measured kernels on no group of this graph").arg(heat.stray_kernels.size());
  }
  caption_->setText(text);
  // Names are elided to 200 px (full in the tooltip) so the figures, bandwidth last, stay in view.
  for (const int names : {int(KernelsModel::kKernel), int(KernelsModel::kGroup)}) {
    table_->resizeColumnToContents(names);
    table_->setColumnWidth(names, std::min(table_->columnWidth(names), 200));
  }
  table_->resizeColumnToContents(KernelsModel::kBandwidth);
}

void KernelsPanel::on_clicked(const QModelIndex& index) {
  const KernelRow* row = model_->row_at(sorted_->mapToSource(index).row());
  if (row == nullptr) return;
  emit nodes_chosen(row->canvas_nodes,
                    tr("%1: %2 nodes selected").arg(row->kernel).arg(row->nodes));
}

}  // namespace fxscope::views
