#include "models/unit_comparison_model.h"

#include <QStringList>
#include <algorithm>
#include <utility>

namespace fxscope::views {
namespace {

std::size_t breaks_hit(const std::vector<report::BreakChange>& breaks, const std::string& id) {
  return std::size_t(std::count_if(breaks.begin(), breaks.end(), [&id](const auto& c) {
    return std::find(c.compile_ids.begin(), c.compile_ids.end(), id) != c.compile_ids.end();
  }));
}

QString frame_text(const trace::StackFrame& frame) {
  const auto slash = frame.file.find_last_of('/');
  const std::string file = slash == std::string::npos ? frame.file : frame.file.substr(slash + 1);
  return QStringLiteral("%1  %2:%3")
      .arg(QString::fromStdString(frame.function), QString::fromStdString(file))
      .arg(frame.line);
}

}  // namespace

UnitComparisonModel::UnitComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void UnitComparisonModel::set_comparison(ComparisonPtr comparison) {
  beginResetModel();
  comparison_ = std::move(comparison);
  rows_.clear();
  if (comparison_) {
    const report::RunDiff& d = comparison_->diff;
    for (const auto& pair : d.matched) {
      Row row{pair_changed(d, pair) ? ChangeMark::changed : ChangeMark::none,
              &pair.a,
              &pair.b,
              &pair,
              breaks_hit(d.breaks_fixed, pair.a.compile_id),
              breaks_hit(d.breaks_new, pair.b.compile_id)};
      rows_.push_back(row);
    }
    for (const auto& unit : d.only_a) {
      rows_.push_back({ChangeMark::removed, &unit, nullptr, nullptr,
                       breaks_hit(d.breaks_fixed, unit.compile_id), 0});
    }
    for (const auto& unit : d.only_b) {
      rows_.push_back({ChangeMark::added, nullptr, &unit, nullptr, 0,
                       breaks_hit(d.breaks_new, unit.compile_id)});
    }
  }
  endResetModel();
}

int UnitComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int UnitComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

ChangeMark UnitComparisonModel::mark(int row) const {
  return row >= 0 && std::size_t(row) < rows_.size() ? rows_[std::size_t(row)].mark
                                                     : ChangeMark::none;
}

QString UnitComparisonModel::before_id(int row) const {
  if (row < 0 || std::size_t(row) >= rows_.size() || rows_[std::size_t(row)].before == nullptr) {
    return {};
  }
  return QString::fromStdString(rows_[std::size_t(row)].before->compile_id);
}

QVariant UnitComparisonModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const Row& row = rows_[std::size_t(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(row, index.column());
    case Qt::BackgroundRole:
      // The whole row of a changed unit, so it stands out when scrolling a long list.
      if (row.mark == ChangeMark::none) return {};
      return mark_color(row.mark).lighter(125);
    case Qt::TextAlignmentRole:
      if (index.column() >= kKernelsBefore && index.column() <= kCompileAfter) {
        return int(Qt::AlignRight | Qt::AlignVCenter);
      }
      return {};
    default:
      return {};
  }
}

QVariant UnitComparisonModel::display(const Row& row, int column) const {
  const report::DiffUnit* either = row.before != nullptr ? row.before : row.after;
  switch (column) {
    case kChange:
      return row.mark == ChangeMark::none ? tr("same") : to_text(row.mark);
    case kBefore:
      return row.before != nullptr ? QString::fromStdString(row.before->compile_id) : QString();
    case kAfter:
      return row.after != nullptr ? QString::fromStdString(row.after->compile_id) : QString();
    case kFrame:
      return frame_text(either->frame);
    case kKernelsBefore:
      return row.before != nullptr ? QVariant::fromValue(qulonglong(row.before->launches))
                                   : QVariant();
    case kKernelsAfter:
      return row.after != nullptr ? QVariant::fromValue(qulonglong(row.after->launches))
                                  : QVariant();
    case kCompileBefore:
      return row.before != nullptr ? QString::number(row.before->compile_s, 'f', 2) : QString();
    case kCompileAfter:
      return row.after != nullptr ? QString::number(row.after->compile_s, 'f', 2) : QString();
    case kWhat:
      return what_changed(row);
    default:
      return {};
  }
}

QString UnitComparisonModel::what_changed(const Row& row) const {
  QStringList parts;
  if (row.pair != nullptr && !row.pair->ops.empty()) {
    parts << tr("%n op(s) differ", nullptr, int(row.pair->ops.size()));
  }
  if (row.pair != nullptr && !row.pair->kernels.empty()) {
    parts << tr("%n kernel change(s)", nullptr, int(row.pair->kernels.size()));
  }
  if (row.breaks_fixed > 0) parts << tr("%n break(s) fixed", nullptr, int(row.breaks_fixed));
  if (row.breaks_new > 0) parts << tr("%n new break(s)", nullptr, int(row.breaks_new));
  if (row.mark == ChangeMark::removed) parts << tr("only before");
  if (row.mark == ChangeMark::added) parts << tr("only after");
  return parts.join(QStringLiteral(", "));
}

QVariant UnitComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kChange:
      return tr("Change");
    case kBefore:
      return tr("Before");
    case kAfter:
      return tr("After");
    case kFrame:
      return tr("Frame");
    case kKernelsBefore:
      return tr("Kernels before");
    case kKernelsAfter:
      return tr("Kernels after");
    case kCompileBefore:
      return tr("Compile s before");
    case kCompileAfter:
      return tr("Compile s after");
    case kWhat:
      return tr("What changed");
    default:
      return {};
  }
}

}  // namespace fxscope::views
