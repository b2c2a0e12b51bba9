#include "models/guard_list_model.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <utility>

#include "text/guard_wording.h"

namespace fxscope::views {

GuardListModel::GuardListModel(QObject* parent) : QAbstractTableModel(parent) {}

void GuardListModel::set_guards(std::vector<guards::Guard> guards) {
  beginResetModel();
  guards_ = std::move(guards);
  failed_.reset();
  evaluated_ = false;
  endResetModel();
}

void GuardListModel::set_failed(std::optional<std::size_t> failed) {
  failed_ = failed;
  evaluated_ = true;
  if (!guards_.empty()) {
    emit dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
  }
}

int GuardListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(guards_.size());
}

int GuardListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant GuardListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const std::size_t row = std::size_t(index.row());
  const guards::Guard& guard = guards_[row];
  const bool failing = failed_ == row;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case kState:
          if (!guard_is_checked(guard)) return tr("assumed");
          if (!evaluated_) return QString();
          return failing ? tr("FAILS") : tr("holds");
        case kGuard:
          return QString::fromStdString(guard_in_words(guard));
        case kTag:
          return QString::fromStdString(guard.tag);
        default:
          return {};
      }
    case Qt::ToolTipRole:
      return QString::fromStdString(guard.code +
                                    (guard.comment.empty() ? "" : "  # " + guard.comment));
    case Qt::ForegroundRole:
      if (failing) return QBrush(QColor(0xb0, 0x1c, 0x12));
      if (!guard_is_checked(guard)) return QBrush(QColor(0x80, 0x80, 0x80));
      return {};
    case Qt::BackgroundRole:
      return failing ? QVariant(QBrush(QColor(0xfd, 0xec, 0xea))) : QVariant();
    case Qt::FontRole:
      if (failing) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    default:
      return {};
  }
}

QVariant GuardListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kState:
      return tr("State");
    case kGuard:
      return tr("Guard");
    case kTag:
      return tr("Kind");
    default:
      return {};
  }
}

}  // namespace fxscope::views
