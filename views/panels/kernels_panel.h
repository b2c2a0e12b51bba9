#pragma once
// The Kernels tab: the shown graph's kernels, sortable, measured beside predicted; clicking a
// row selects the kernel's nodes on the canvas. It observes the GraphPanel and never calls into
// other panels.

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace fxscope::views {

class GraphPanel;
class KernelsModel;

class KernelsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit KernelsPanel(GraphPanel* graph, QWidget* parent = nullptr);

  const KernelsModel& model() const { return *model_; }
  QTableView& table() const { return *table_; }
  QString caption() const;

 private:
  void refresh();
  void on_clicked(const QModelIndex& index);

  GraphPanel* graph_;
  KernelsModel* model_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* table_ = nullptr;
  QLabel* caption_ = nullptr;
};

}  // namespace fxscope::views
