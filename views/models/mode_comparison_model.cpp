#include "models/mode_comparison_model.h"

#include <QColor>
#include <QStringList>
#include <utility>

namespace fxscope::views {
namespace {

QString side_name(const report::ModeSide& side) {
  return QStringLiteral("%1 %2").arg(
      QString::fromStdString(side.run.mode),
      side.measured ? QObject::tr("measured µs") : QObject::tr("predicted µs"));
}

}  // namespace

ModeComparisonModel::ModeComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ModeComparisonModel::set_comparison(report::ModeComparison comparison) {
  beginResetModel();
  comparison_ = std::move(comparison);
  endResetModel();
  emit headerDataChanged(Qt::Horizontal, 0, kColumnCount - 1);
}

void ModeComparisonModel::clear() {
  set_comparison({});
}

int ModeComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(comparison_.rows.size());
}

int ModeComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant ModeComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || std::size_t(index.row()) >= comparison_.rows.size()) return {};
  const report::KernelDelta& row = comparison_.rows[std::size_t(index.row())];
  if (role == kSortRole) {
    switch (index.column()) {
      case kNodes:
        return qulonglong(row.nodes.size());
      case kA:
        return row.a_us;
      case kB:
        return row.b_us;
      case kDelta:
        return row.delta_us();
      default:
        return QString::fromStdString(row.name);
    }
  }
  if (role == Qt::ForegroundRole && index.column() == kDelta) {
    // Green where B is faster, red where slower: the colours a diff uses.
    if (row.delta_us() < 0) return QColor(20, 120, 40);
    if (row.delta_us() > 0) return QColor(170, 30, 30);
    return {};
  }
  if (role == Qt::TextAlignmentRole && index.column() != kKernel) {
    return QVariant::fromValue(Qt::AlignVCenter | Qt::AlignRight);
  }
  if (role == Qt::ToolTipRole && index.column() == kKernel) {
    QStringList nodes;
    for (const std::string& node : row.nodes) nodes << QString::fromStdString(node);
    return nodes.join(QStringLiteral(", "));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kKernel:
      return QString::fromStdString(row.name);
    case kNodes:
      return qulonglong(row.nodes.size());
    case kA:
      return QString::number(row.a_us, 'f', 2);
    case kB:
      return QString::number(row.b_us, 'f', 2);
    case kDelta:
      return QString::asprintf("%+.2f", row.delta_us());
    default:
      return {};
  }
}

QVariant ModeComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kKernel:
      return tr("Kernel of %1").arg(QString::fromStdString(comparison_.b.run.mode));
    case kNodes:
      return tr("Nodes");
    case kA:
      return side_name(comparison_.a);
    case kB:
      return side_name(comparison_.b);
    case kDelta:
      return tr("Δ µs (B − A)");
    default:
      return {};
  }
}

}  // namespace fxscope::views
