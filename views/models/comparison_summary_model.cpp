#include "models/comparison_summary_model.h"

#include <algorithm>
#include <cmath>

namespace fxscope::views {
namespace {

// The phases whose own time moved most: the diff ranks them; more belong in `fxscope-cli diff`.
constexpr std::size_t kPhasesShown = 8;
// The key components named; the diff text sub-tab lists every lookup's.
constexpr std::size_t kKeyComponentsShown = 8;

QString lookups_label(const report::CacheStateCount& c) {
  const QString cache = QString::fromStdString(c.cache);
  if (c.state == "hit") return ComparisonSummaryModel::tr("%1 cache hits").arg(cache);
  if (c.state == "miss") return ComparisonSummaryModel::tr("%1 cache misses").arg(cache);
  return ComparisonSummaryModel::tr("%1 cache lookups: %2")
      .arg(cache, QString::fromStdString(c.state));
}

// An empty value is a component one key lacks.
QString component_value(const std::string& value) {
  return value.empty() ? QStringLiteral("\u2013") : QString::fromStdString(value);
}

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
    // Before compile time: a hit turned miss is what a compile-time change asks about first.
    add_cache_rows(d);
    rows_.push_back({tr("Compile time"), d.a_compile_s, d.b_compile_s, true});
    for (std::size_t p = 0; p < d.phases.size() && p < kPhasesShown; ++p) {
      rows_.push_back({tr("  phase %1 (own time)").arg(QString::fromStdString(d.phases[p].name)),
                       d.phases[p].a_s, d.phases[p].b_s, true});
    }
  }
  endResetModel();
}

void ComparisonSummaryModel::add_cache_rows(const report::RunDiff& d) {
  for (const auto& c : d.cache_states) {
    rows_.push_back({lookups_label(c), double(c.a), double(c.b), false});
  }
  // Each component once, with the values of the first lookup whose key differs in it: a setting
  // changed between the runs differs in every lookup alike.
  std::vector<const report::KeyComponentChange*> components;
  for (const auto& unit : d.matched) {
    for (const auto& lookup : unit.caches) {
      for (const auto& k : lookup.components) {
        const bool seen = std::any_of(components.begin(), components.end(),
                                      [&k](const auto* c) { return c->name == k.name; });
        if (!seen) components.push_back(&k);
      }
    }
  }
  for (std::size_t i = 0; i < components.size() && i < kKeyComponentsShown; ++i) {
    const auto& k = *components[i];
    Row row{tr("  cache key differs in %1").arg(QString::fromStdString(k.name)), 0, 0, false};
    row.text = true;
    row.before_text = component_value(k.a);
    row.after_text = component_value(k.b);
    rows_.push_back(std::move(row));
  }
  if (components.size() > kKeyComponentsShown) {
    Row row{tr("  and %1 more key components (the Diff text names them)")
                .arg(components.size() - kKeyComponentsShown),
            0, 0, false};
    row.text = true;
    rows_.push_back(std::move(row));
  }
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
      return row.text ? row.before_text : number(row, row.before, false);
    case kAfter:
      return row.text ? row.after_text : number(row, row.after, false);
    case kChange:
      if (row.text) return {};
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
