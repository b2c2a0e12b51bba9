#pragma once
// The Compare tab's units table: every compile unit of either log, before beside after, as the
// engine's diff paired them, coloured by what changed. Rows: paired units (the shown log's
// order), then units only before (removed), then units only after (added).

#include <QAbstractTableModel>
#include <QString>
#include <vector>

#include "compare/change_marks.h"
#include "compare/comparison.h"

namespace fxscope::views {

class UnitComparisonModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kChange,
    kBefore,
    kAfter,
    kFrame,
    kKernelsBefore,
    kKernelsAfter,
    kCompileBefore,
    kCompileAfter,
    kWhat,
    kColumnCount
  };

  explicit UnitComparisonModel(QObject* parent = nullptr);

  void set_comparison(ComparisonPtr comparison);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  ChangeMark mark(int row) const;
  // The shown ("before") log's compile id of ROW; empty for a unit only after.
  QString before_id(int row) const;

 private:
  struct Row {
    ChangeMark mark = ChangeMark::none;
    const report::DiffUnit* before = nullptr;
    const report::DiffUnit* after = nullptr;
    const report::UnitDiff* pair = nullptr;
    std::size_t breaks_fixed = 0;  // breaks before hit in this unit that after lacks
    std::size_t breaks_new = 0;
  };
  QVariant display(const Row& row, int column) const;
  QString what_changed(const Row& row) const;

  ComparisonPtr comparison_;
  std::vector<Row> rows_;
};

}  // namespace fxscope::views
