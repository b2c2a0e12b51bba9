#pragma once
// The A/B tab's table: one row per kernel of mode B with the time mode A spent on the same
// nodes and the difference; numbers sort as numbers through kSortRole.

#include <QAbstractTableModel>

#include "fxscope/report/run_result_comparison.h"

namespace fxscope::views {

class ModeComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kKernel, kNodes, kA, kB, kDelta, kColumnCount };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit ModeComparisonModel(QObject* parent = nullptr);

  void set_comparison(report::ModeComparison comparison);
  void clear();
  const report::ModeComparison& comparison() const { return comparison_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  report::ModeComparison comparison_;
};

}  // namespace fxscope::views
