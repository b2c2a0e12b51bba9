#pragma once
// The "Graph breaks" table: one row per distinct break site of the log, with how often it hit.

#include <QAbstractTableModel>

#include "window/loaded_log.h"

namespace fxscope::views {

class GraphBreaksModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kLocation, kReason, kHint, kCode, kCount, kColumnCount };

  explicit GraphBreaksModel(QObject* parent = nullptr);

  void set_log(LoadedLogPtr log);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant display(const trace::GraphBreak& graph_break, int column) const;
  QVariant tool_tip(const trace::GraphBreak& graph_break, int column) const;

  LoadedLogPtr log_;
};

}  // namespace fxscope::views
