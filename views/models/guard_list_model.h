#pragma once
// The guards of the selected unit in plain words, in Dynamo's order, each marked as holding,
// failing (the first guard the edited input breaks) or assumed (no input can decide it).

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "fxscope/guards/guard.h"

namespace fxscope::views {

class GuardListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kState, kTag, kGuard, kColumnCount };

  explicit GuardListModel(QObject* parent = nullptr);

  void set_guards(std::vector<guards::Guard> guards);
  // The evaluation of the current input: the index of the failing guard, or none (all hold).
  void set_failed(std::optional<std::size_t> failed);
  std::optional<std::size_t> failed() const { return failed_; }
  const std::vector<guards::Guard>& guards() const { return guards_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<guards::Guard> guards_;
  std::optional<std::size_t> failed_;
  bool evaluated_ = false;
};

}  // namespace fxscope::views
