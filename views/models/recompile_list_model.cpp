#include "models/recompile_list_model.h"

#include <QBrush>
#include <QColor>
#include <utility>

namespace fxscope::views {

RecompileListModel::RecompileListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RecompileListModel::set_rows(std::vector<RecompileRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int RecompileListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int RecompileListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RecompileListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const RecompileRow& row = rows_[std::size_t(index.row())];
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case kCompile:
        return QString::fromStdString(row.compile_id);
      case kRecorded:
        return QString::fromStdString(row.recorded);
      case kReplayed:
        return row.match ? tr("reproduced: %1").arg(QString::fromStdString(row.replayed))
                         : tr("differs: %1").arg(QString::fromStdString(row.replayed));
      default:
        return {};
    }
  }
  if (role == Qt::ForegroundRole && index.column() == kReplayed && !row.match) {
    return QBrush(QColor(0xb0, 0x1c, 0x12));
  }
  return {};
}

QVariant RecompileListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kCompile:
      return tr("Recompile");
    case kRecorded:
      return tr("Failed guard (as Dynamo logged it)");
    case kReplayed:
      return tr("fxscope's replay");
    default:
      return {};
  }
}

}  // namespace fxscope::views
