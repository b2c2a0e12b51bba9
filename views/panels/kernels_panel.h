#pragma once
// The Kernels tab: the shown graph's kernels, sortable, measured beside predicted; clicking a
// row asks for the kernel's nodes to be selected on the canvas. It observes the ViewContext (the
// graph drawn and the GPU run) and never calls into other panels.

#include <QWidget>
#include <vector>

#include "layout/heat_overlay.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace fxscope::views {

class KernelsModel;
class ViewContext;

class KernelsPanel : public QWidget {
  Q_OBJECT

 public:
  KernelsPanel(ViewContext& context, QWidget* parent = nullptr);

  const KernelsModel& model() const { return *model_; }
  QTableView& table() const { return *table_; }
  QString caption() const;

 signals:
  // A row was clicked: the window selects IDS on the canvas and shows REASON.
  void nodes_chosen(const std::vector<fxscope::graph::NodeId>& ids, const QString& reason);

 private:
  void refresh();
  void on_clicked(const QModelIndex& index);

  ViewContext& context_;
  // The context's graph timed by its run, as the canvas's heat colours are.
  HeatOverlay heat_;
  KernelsModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* table_ = nullptr;
  QLabel* caption_ = nullptr;
};

}  // namespace fxscope::views
