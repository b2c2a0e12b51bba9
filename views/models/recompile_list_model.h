#pragma once
// The recompiles the log recorded for the selected unit's frame: the new compile, the guard that
// failed as Dynamo wrote it, and fxscope's replay of it from the new compile's own input.

#include <QAbstractTableModel>
#include <string>
#include <vector>

namespace fxscope::views {

struct RecompileRow {
  std::string compile_id;  // the new compile: "4/1"
  std::string recorded;    // Dynamo's reasons, one a line: "4/0: tensor 'x' size mismatch ..."
  std::string replayed;    // fxscope's, in the same form
  bool match = false;
};

class RecompileListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kCompile, kRecorded, kReplayed, kColumnCount };

  explicit RecompileListModel(QObject* parent = nullptr);

  void set_rows(std::vector<RecompileRow> rows);
  const std::vector<RecompileRow>& rows() const { return rows_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<RecompileRow> rows_;
};

}  // namespace fxscope::views
