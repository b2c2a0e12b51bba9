#include "models/compile_units_model.h"

#include <QBrush>
#include <QColor>
#include <utility>

#include "text/display_format.h"

namespace fxscope::views {
namespace {

const QColor kBreakColor(0xb0, 0x1c, 0x1c);
const QColor kRecompileColor(0x9a, 0x5b, 0x00);

}  // namespace

CompileUnitsModel::CompileUnitsModel(QObject* parent) : QAbstractItemModel(parent) {}

void CompileUnitsModel::set_log(LoadedLogPtr log) {
  beginResetModel();
  log_ = std::move(log);
  marks_.clear();
  build_rows();
  endResetModel();
}

int CompileUnitsModel::add_row(RowKind kind, int parent, int frame_id, std::size_t unit,
                               std::size_t item) {
  const int position = static_cast<int>(rows_.size());
  auto& siblings = parent < 0 ? top_rows_ : rows_[static_cast<std::size_t>(parent)].children;
  Row row;
  row.kind = kind;
  row.parent = parent;
  row.row = static_cast<int>(siblings.size());
  row.frame_id = frame_id;
  row.unit = unit;
  row.item = item;
  siblings.push_back(position);
  rows_.push_back(std::move(row));
  return position;
}

// Units are grouped under their frame in the order frames first appear; a unit's break and
// recompile rows follow it, so the tree reads like the log.
void CompileUnitsModel::build_rows() {
  rows_.clear();
  top_rows_.clear();
  if (!log_) return;
  const auto& summary = log_->summary;
  std::vector<std::pair<int, int>> frame_rows;  // frame id -> position
  for (std::size_t u = 0; u < summary.units.size(); ++u) {
    const auto& unit = summary.units[u];
    int frame_row = -1;
    for (const auto& [frame_id, position] : frame_rows) {
      if (frame_id == unit.frame_id) frame_row = position;
    }
    if (frame_row < 0) {
      frame_row = add_row(RowKind::kFrame, -1, unit.frame_id, u, 0);
      frame_rows.emplace_back(unit.frame_id, frame_row);
    }
    const int unit_row = add_row(RowKind::kUnit, frame_row, unit.frame_id, u, 0);
    for (std::size_t b : unit.graph_breaks) {
      add_row(RowKind::kGraphBreak, unit_row, unit.frame_id, u, b);
    }
    if (unit.recompile) {
      const auto& reasons = summary.recompiles[*unit.recompile].reasons;
      for (std::size_t r = 0; r < reasons.size(); ++r) {
        add_row(RowKind::kRecompileReason, unit_row, unit.frame_id, u, r);
      }
    }
  }
}

QModelIndex CompileUnitsModel::unit_index(std::size_t unit) const {
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].kind == RowKind::kUnit && rows_[i].unit == unit) {
      return createIndex(rows_[i].row, 0, static_cast<quintptr>(i));
    }
  }
  return {};
}

QModelIndex CompileUnitsModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  const auto& siblings = parent.isValid() ? rows_[parent.internalId()].children : top_rows_;
  return createIndex(row, column, static_cast<quintptr>(siblings[static_cast<std::size_t>(row)]));
}

QModelIndex CompileUnitsModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const int parent_position = rows_[child.internalId()].parent;
  if (parent_position < 0) return {};
  const auto position = static_cast<std::size_t>(parent_position);
  return createIndex(rows_[position].row, 0, static_cast<quintptr>(position));
}

int CompileUnitsModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(top_rows_.size());
  if (parent.column() != 0) return 0;
  return static_cast<int>(rows_[parent.internalId()].children.size());
}

int CompileUnitsModel::columnCount(const QModelIndex&) const {
  return kColumnCount;
}

void CompileUnitsModel::set_comparison(const ComparisonPtr& comparison) {
  marks_.clear();
  if (comparison && log_ && comparison->before == log_) {
    for (const auto& unit : log_->summary.units) {
      marks_.push_back(unit_mark(comparison->diff, unit.compile_id));
    }
  }
  // Unit rows sit under frame rows, one parent each: a change per row.
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].kind != RowKind::kUnit) continue;
    emit dataChanged(createIndex(rows_[i].row, 0, quintptr(i)),
                     createIndex(rows_[i].row, kColumnCount - 1, quintptr(i)),
                     {Qt::BackgroundRole, kChangeRole});
  }
}

QVariant CompileUnitsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Row& row = rows_[index.internalId()];
  switch (role) {
    case Qt::DisplayRole:
      return display(row, index.column());
    case Qt::ToolTipRole:
      return tool_tip(row);
    case Qt::ForegroundRole:
      return foreground(row);
    case Qt::TextAlignmentRole:
      if (index.column() >= kDynamoOps) return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case kUnitRole:
      if (row.kind == RowKind::kFrame) return {};
      return QVariant::fromValue(static_cast<qulonglong>(row.unit));
    case kFrameRole:
      if (row.kind != RowKind::kFrame) return {};
      return row.frame_id;
    case kChangeRole:
      if (row.kind != RowKind::kUnit || row.unit >= marks_.size()) return {};
      return int(marks_[row.unit]);
    case Qt::BackgroundRole:
      if (row.kind != RowKind::kUnit || row.unit >= marks_.size() ||
          marks_[row.unit] == ChangeMark::none) {
        return {};
      }
      return mark_color(marks_[row.unit]).lighter(125);
    default:
      return {};
  }
}

QVariant CompileUnitsModel::display(const Row& row, int column) const {
  const auto& summary = log_->summary;
  const auto& unit = summary.units[row.unit];
  switch (row.kind) {
    case RowKind::kFrame:
      if (column == kId) return tr("frame %1").arg(row.frame_id);
      if (column == kFunction) return function_at(unit.frame, unit.producer);
      return {};
    case RowKind::kUnit:
      switch (column) {
        case kId:
          return QString::fromStdString(unit.compile_id);
        case kFunction:
          return function_at(unit.frame, unit.producer);
        case kDynamoOps:
          return count_text(unit.dynamo_ops);
        case kAtenOps:
          return count_text(unit.aten_ops);
        case kKernels:
          return count_text(unit.inductor_kernels);
        case kCompileTime:
          return seconds_text(unit.compile_time_s);
        default:
          return {};
      }
    case RowKind::kGraphBreak: {
      // Detail rows span every column in the view, so all their text lives in the first one.
      if (column != kId) return {};
      const auto& graph_break = summary.graph_breaks[row.item];
      return tr("graph break at %1: %2")
          .arg(short_location(graph_break.file, graph_break.line),
               QString::fromStdString(graph_break.reason));
    }
    case RowKind::kRecompileReason: {
      if (column != kId) return {};
      const auto& reason = summary.recompiles[*unit.recompile].reasons[row.item];
      return tr("recompiled, guard of %1 failed: %2")
          .arg(QString::fromStdString(reason.failed_id.str()),
               QString::fromStdString(reason.guard));
    }
  }
  return {};
}

QVariant CompileUnitsModel::tool_tip(const Row& row) const {
  const auto& summary = log_->summary;
  const auto& unit = summary.units[row.unit];
  switch (row.kind) {
    case RowKind::kFrame:
      return QString::fromStdString(unit.frame.location());
    case RowKind::kUnit:
      if (unit.failure.empty()) return QString::fromStdString(unit.frame.location());
      return QString::fromStdString(unit.frame.location() + "\nfailed: " + unit.failure);
    case RowKind::kGraphBreak: {
      const auto& graph_break = summary.graph_breaks[row.item];
      return QString::fromStdString(graph_break.location() + "\n" + graph_break.message);
    }
    case RowKind::kRecompileReason:
      return QString::fromStdString(summary.recompiles[*unit.recompile].reasons[row.item].text);
  }
  return {};
}

QVariant CompileUnitsModel::foreground(const Row& row) const {
  if (row.kind == RowKind::kGraphBreak) return QBrush(kBreakColor);
  if (row.kind == RowKind::kRecompileReason) return QBrush(kRecompileColor);
  if (row.kind == RowKind::kUnit && !log_->summary.units[row.unit].failure.empty()) {
    return QBrush(kBreakColor);
  }
  return {};
}

QVariant CompileUnitsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kId:
      return tr("Id");
    case kFunction:
      return tr("Function");
    case kDynamoOps:
      return tr("Dynamo ops");
    case kAtenOps:
      return tr("ATen ops");
    case kKernels:
      return tr("Kernels");
    case kCompileTime:
      return tr("Compile time");
    default:
      return {};
  }
}

}  // namespace fxscope::views
