#include "models/graph_breaks_model.h"

#include <QStringList>
#include <utility>

#include "text/display_format.h"

namespace fxscope::views {

GraphBreaksModel::GraphBreaksModel(QObject* parent) : QAbstractTableModel(parent) {}

void GraphBreaksModel::set_log(LoadedLogPtr log) {
  beginResetModel();
  log_ = std::move(log);
  endResetModel();
}

int GraphBreaksModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !log_) return 0;
  return static_cast<int>(log_->summary.graph_breaks.size());
}

int GraphBreaksModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant GraphBreaksModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const auto& graph_break = log_->summary.graph_breaks[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(graph_break, index.column());
    case Qt::ToolTipRole:
      return tool_tip(graph_break, index.column());
    case Qt::TextAlignmentRole:
      if (index.column() == kCount) return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    default:
      return {};
  }
}

QVariant GraphBreaksModel::display(const trace::GraphBreak& graph_break, int column) const {
  switch (column) {
    case kLocation:
      return short_location(graph_break.file, graph_break.line);
    case kReason:
      return QString::fromStdString(graph_break.reason);
    case kHint:
      // Dynamo lists its most specific hint first; the tooltip has them all.
      return graph_break.hints.empty() ? QString() : QString::fromStdString(graph_break.hints[0]);
    case kCode:
      return QString::fromStdString(graph_break.gb_code);
    case kCount:
      return QVariant::fromValue(static_cast<qulonglong>(graph_break.count));
    default:
      return {};
  }
}

QVariant GraphBreaksModel::tool_tip(const trace::GraphBreak& graph_break, int column) const {
  switch (column) {
    case kLocation:
      return QString::fromStdString(graph_break.location());
    case kReason:
      return QString::fromStdString(graph_break.explanation.empty() ? graph_break.reason
                                                                    : graph_break.explanation);
    case kHint: {
      QStringList hints;
      for (const auto& hint : graph_break.hints) hints << QString::fromStdString(hint);
      return hints.join(QLatin1Char('\n'));
    }
    case kCode:
      return QString::fromStdString(graph_break.link);
    default:
      return {};
  }
}

QVariant GraphBreaksModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kLocation:
      return tr("Location");
    case kReason:
      return tr("Reason");
    case kHint:
      return tr("Hint");
    case kCode:
      return tr("GB code");
    case kCount:
      return tr("Count");
    default:
      return {};
  }
}

}  // namespace fxscope::views
