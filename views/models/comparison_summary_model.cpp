#include "models/comparison_summary_model.h"

#include <algorithm>
#include <cmath>

namespace fxscope::views {
namespace {

// The phases whose own time moved most: the diff ranks them; more belong in `fxscope-cli diff`.
constexpr std::size_t kPhasesShown = 8;

}  // namespace

ComparisonSummaryModel::ComparisonSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonSummaryModel::set_comparison(const ComparisonPtr& comparison) {
  beginResetModel();
  rows_.clear();
  if (comparison) {
    const report::RunDiff& d = comparison->diff;
    const auto& before = comparison->before->summary;
    const auto& after = comparison->after->summary;
    rows_.push_back({tr("Compile units"), double(d.a_units), double(d.b_units), false});
    rows_.push_back({tr("Graph breaks"), double(before.graph_breaks.size()),
                     double(after.graph_breaks.size()), false});
    rows_.push_back({tr("Recompiles"), double(before.recompiles.size()),
                     double(after.recompiles.size()), false});
    rows_.push_back({tr("Kernel launches"), double(d.a_launches), double(d.b_launches), false});
    rows_.push_back({tr("Compile time"), d.a_compile_s, d.b_compile_s, true});
    for (std::size_t p = 0; p < d.phases.size() && p < kPhasesShown; ++p) {
      rows_.push_back({tr("  phase %1 (own time)").arg(QString::fromStdString(d.phases[p].name)),
                       d.phases[p].a_s, d.phases[p].b_s, true});
    }
  }
  endResetModel();
}

int ComparisonSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int ComparisonSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QString ComparisonSummaryModel::number(const Row& row, double value, bool signed_change) const {
  if (row.seconds) {
    return QStringLiteral("%1%2 s")
        .arg(signed_change && value > 0 ? QStringLiteral("+") : QString())
        .arg(value, 0, 'f', 2);
  }
  const auto whole = static_cast<long long>(std::llround(value));
  return signed_change && whole > 0 ? QStringLiteral("+%1").arg(whole) : QString::number(whole);
}

QVariant ComparisonSummaryModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& row = rows_[std::size_t(index.row())];
  if (role == Qt::TextAlignmentRole && index.column() != kWhat) {
    return int(Qt::AlignRight | Qt::AlignVCenter);
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kWhat:
      return row.what;
    case kBefore:
      return number(row, row.before, false);
    case kAfter:
      return number(row, row.after, false);
    case kChange:
      return row.after == row.before ? QString() : number(row, row.after - row.before, true);
    default:
      return {};
  }
}

QVariant ComparisonSummaryModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kWhat:
      return tr("Summary");
    case kBefore:
      return tr("Before");
    case kAfter:
      return tr("After");
    case kChange:
      return tr("Change");
    default:
      return {};
  }
}

}  // namespace fxscope::views
