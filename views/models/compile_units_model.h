#pragma once
// The "Compile units" tree: frames, their compile units, and under each unit the graph breaks it
// hit and the failed guards that made Dynamo recompile it.

#include <QAbstractItemModel>
#include <cstddef>
#include <vector>

#include "compare/change_marks.h"
#include "compare/comparison.h"
#include "window/loaded_log.h"

namespace fxscope::views {

class CompileUnitsModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Column { kId, kFunction, kDynamoOps, kAtenOps, kKernels, kCompileTime, kColumnCount };
  // The index into Summary::units of the unit a row shows or belongs to; absent on frame rows.
  static constexpr int kUnitRole = Qt::UserRole + 1;
  // The Dynamo frame id of a frame row; absent elsewhere.
  static constexpr int kFrameRole = Qt::UserRole + 2;
  // A unit row's ChangeMark (as int) under a comparison; absent without one.
  static constexpr int kChangeRole = Qt::UserRole + 3;

  explicit CompileUnitsModel(QObject* parent = nullptr);

  void set_log(LoadedLogPtr log);
  // The row of unit UNIT (an index into Summary::units); invalid when there is none.
  QModelIndex unit_index(std::size_t unit) const;
  // Tints each unit row by what the comparison's other log changed (null: no tint). COMPARISON
  // must be of this model's log.
  void set_comparison(const ComparisonPtr& comparison);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  enum class RowKind { kFrame, kUnit, kGraphBreak, kRecompileReason };
  // One row of the tree in a flat vector; an index's internalId is its position there.
  struct Row {
    RowKind kind = RowKind::kFrame;
    int parent = -1;  // position of the parent row, -1 at the top
    int row = 0;      // row number under the parent
    int frame_id = -1;
    std::size_t unit = 0;  // frame rows: their first unit
    std::size_t item = 0;  // graph breaks: index into Summary::graph_breaks; reasons: into reasons
    std::vector<int> children;
  };

  void build_rows();
  int add_row(RowKind kind, int parent, int frame_id, std::size_t unit, std::size_t item);
  QVariant display(const Row& row, int column) const;
  QVariant tool_tip(const Row& row) const;
  QVariant foreground(const Row& row) const;

  LoadedLogPtr log_;
  std::vector<Row> rows_;
  std::vector<int> top_rows_;
  std::vector<ChangeMark> marks_;  // per unit of the summary; empty without a comparison
};

}  // namespace fxscope::views
