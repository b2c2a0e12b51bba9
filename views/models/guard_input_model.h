#pragma once
// The input editor of the Guards & recompiles tab: one row per tensor or constant of the unit's
// input, pre-filled with what the unit was compiled for. Shape, dtype and strides of a tensor
// and the value of a constant are editable; an edit that does not parse is refused with a
// message and the row keeps its value.

#include <QAbstractTableModel>

#include "fxscope/guards/proposed_input.h"

namespace fxscope::views {

class GuardInputModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kName, kShape, kDtype, kStrides, kValue, kColumnCount };

  explicit GuardInputModel(QObject* parent = nullptr);

  // Replaces every row with INPUT's tensors, then its constants.
  void set_input(guards::ProposedInput input);
  const guards::ProposedInput& input() const { return input_; }
  // The row of the input named NAME ("x" or "L['x']"); -1 when there is none.
  int row_of(const QString& name) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

 signals:
  // After every accepted edit.
  void input_edited();
  // An edit was refused: what was typed and what was expected.
  void edit_refused(const QString& message);

 private:
  bool is_tensor_row(int row) const;
  bool set_tensor_field(int row, int column, const QString& text);

  guards::ProposedInput input_;
};

}  // namespace fxscope::views
