#pragma once
// The Compare tab's summary: the shown log ("before") beside the compared one ("after") and the
// change, for compile units, graph breaks, recompiles, kernel launches, compile time, the phases
// whose compile time moved most, each cache's hits and misses, and the cache-key components that
// differ with their values. Every number is the engine diff's or the logs' own.

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "compare/comparison.h"

namespace fxscope::views {

class ComparisonSummaryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kWhat, kBefore, kAfter, kChange, kColumnCount };

  explicit ComparisonSummaryModel(QObject* parent = nullptr);

  void set_comparison(const ComparisonPtr& comparison);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString what;
    double before = 0;
    double after = 0;
    bool seconds = false;  // a time, shown with two decimals and "s"; else a count
    // Values shown as they are, with no change column (a cache-key component's values); set
    // where `text` is.
    bool text = false;
    QString before_text{};
    QString after_text{};
  };
  void add_cache_rows(const report::RunDiff& diff);
  QString number(const Row& row, double value, bool signed_change) const;

  std::vector<Row> rows_;
};

}  // namespace fxscope::views
