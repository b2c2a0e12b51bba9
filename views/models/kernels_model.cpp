#include "models/kernels_model.h"

#include <QColor>
#include <QLocale>
#include <utility>

namespace fxscope::views {
namespace {

QString dim3(const std::array<int, 3>& d) {
  if (d == std::array<int, 3>{}) return {};
  return QStringLiteral("%1×%2×%3").arg(d[0]).arg(d[1]).arg(d[2]);
}

QVariant micros(const std::optional<double>& us) {
  return us ? QVariant(QString::number(*us, 'f', 2)) : QVariant();
}

// "3,235 GB/s · 92%": achieved bandwidth and the share of copy bandwidth the target judges. A
// compute-bound kernel's bound is the issue rate, not memory: "2,016 GB/s · compute 89%", its
// share of the issue rate, so that a low share of copy is not read as slow memory access.
QString bandwidth_text(const report::RunBandwidth& b) {
  const QString gbps = QLocale::c().toString(b.gbps, 'f', 0);
  if (b.compute_bound && b.share_of_issue_rate > 0) {
    return QStringLiteral("%1 GB/s · compute %2%")
        .arg(gbps)
        .arg(b.share_of_issue_rate * 100, 0, 'f', 0);
  }
  return QStringLiteral("%1 GB/s · %2%%3")
      .arg(gbps)
      .arg(b.judged_share * 100, 0, 'f', 0)
      .arg(b.compute_bound ? QStringLiteral(" · compute") : QString());
}

QString bandwidth_tip(const report::RunBandwidth& b) {
  QString moved = QStringLiteral("%1 MB moved").arg(b.bytes / 1e6, 0, 'f', 1);
  if (b.same_size_copy_kernel_us > 0) {
    moved += QObject::tr(", %1% of a same-size copy kernel (%2 us)")
                 .arg(b.share_of_same_size_copy_kernel * 100, 0, 'f', 0)
                 .arg(b.same_size_copy_kernel_us, 0, 'f', 2);
    if (!b.reference_place.empty()) {
      moved += QObject::tr(" timed %1").arg(QString::fromStdString(b.reference_place));
    }
    if (b.alone_copy_kernel_us > 0 && b.alone_copy_kernel_us != b.same_size_copy_kernel_us) {
      moved += QObject::tr(" (%1 us alone)").arg(b.alone_copy_kernel_us, 0, 'f', 2);
    }
  }
  if (b.same_size_copy_us > 0) {
    moved += QObject::tr(", %1% of a same-size cudaMemcpy (%2 us)")
                 .arg(b.share_of_same_size_copy * 100, 0, 'f', 0)
                 .arg(b.same_size_copy_us, 0, 'f', 2);
  }
  moved += QObject::tr(", %1% of the run's 256 MiB copy").arg(b.share_of_copy * 100, 0, 'f', 0);
  if (!b.judged_against.empty()) {
    moved += QObject::tr("; judged against the %1").arg(QString::fromStdString(b.judged_against));
  }
  if (b.compute_bound) {
    return QObject::tr(
               "%1: compute-bound, not held to the 70%-of-copy target (issuing its "
               "instructions takes about %2 us, longer than a copy of its bytes; it runs at "
               "%3% of the issue rate)")
        .arg(moved)
        .arg(b.alu_us, 0, 'f', 1)
        .arg(b.share_of_issue_rate * 100, 0, 'f', 0);
  }
  if (!b.held_to_target) {
    return QObject::tr(
               "%1: not held to the 70%-of-copy target (under 1 MB, where launch ramp and tail "
               "dominate, or no copy of its size was measured)")
        .arg(moved);
  }
  return b.meets_target ? QObject::tr("%1: meets the 70%-of-copy target").arg(moved)
                        : QObject::tr("%1: below the 70%-of-copy target").arg(moved);
}

}  // namespace

std::vector<KernelRow> kernel_rows(const CanvasGraph& graph, const HeatOverlay& heat) {
  std::vector<KernelRow> rows;
  const report::RunMode* mode = heat.mode;
  for (std::size_t g = 0; g < graph.groups.size() && g < heat.groups.size(); ++g) {
    const CanvasGroup& group = graph.groups[g];
    const GroupHeat& h = heat.groups[g];
    KernelRow row;
    row.group = QString::fromStdString(group.name);
    row.nodes = int(group.nodes.size());
    row.predicted_us = group.predicted_us;
    row.canvas_nodes = group.nodes;
    QStringList names;
    const report::RunKernel* longest = nullptr;
    const report::RunKernel* own = h.own ? &mode->kernels[*h.own] : nullptr;
    for (std::size_t k : h.kernels) {
      const report::RunKernel& kernel = mode->kernels[k];
      names << QString::fromStdString(kernel.name);
      if (longest == nullptr || kernel.us > longest->us) longest = &kernel;
    }
    if (own != nullptr) {  // the group's own kernel first, the ones sharing its nodes after
      names.removeOne(QString::fromStdString(own->name));
      names.prepend(QString::fromStdString(own->name));
    }
    row.kernel = names.isEmpty() ? row.group : names.join(QStringLiteral(", "));
    if (h.measured) row.measured_us = h.us;
    if (longest != nullptr) {
      row.grid = dim3(longest->grid);
      row.block = dim3(longest->block);
      // The group's own kernel's bandwidth where the run names it (GroupHeat::own).
      row.bandwidth = (own != nullptr ? own : longest)->bandwidth;
    }
    rows.push_back(std::move(row));
  }
  for (std::size_t k : heat.stray_kernels) {
    const report::RunKernel& kernel = mode->kernels[k];
    KernelRow row;
    row.kernel = QString::fromStdString(kernel.name);
    row.group =
        kernel.group.empty() ? QObject::tr("(on no node)") : QString::fromStdString(kernel.group);
    row.nodes = int(kernel.nodes.size());
    row.measured_us = kernel.us;
    row.grid = dim3(kernel.grid);
    row.block = dim3(kernel.block);
    row.bandwidth = kernel.bandwidth;
    for (const std::string& name : kernel.nodes) {
      if (const auto id = graph.graph.find(name)) row.canvas_nodes.push_back(*id);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

KernelsModel::KernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelsModel::set_rows(std::vector<KernelRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

const KernelRow* KernelsModel::row_at(int row) const {
  return row >= 0 && std::size_t(row) < rows_.size() ? &rows_[std::size_t(row)] : nullptr;
}

int KernelsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int KernelsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant KernelsModel::data(const QModelIndex& index, int role) const {
  const KernelRow* row = index.isValid() ? row_at(index.row()) : nullptr;
  if (row == nullptr) return {};
  if (role == kSortRole) {
    switch (index.column()) {
      case kNodes:
        return row->nodes;
      case kMeasured:
        return row->measured_us.value_or(-1.0);
      case kPredicted:
        return row->predicted_us.value_or(-1.0);
      case kBandwidth:
        return row->bandwidth ? row->bandwidth->judged_share : -1.0;
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::TextAlignmentRole) {
    const bool number = index.column() == kNodes || index.column() == kMeasured ||
                        index.column() == kPredicted || index.column() == kBandwidth;
    return QVariant::fromValue(Qt::AlignVCenter | (number ? Qt::AlignRight : Qt::AlignLeft));
  }
  if (role == Qt::ToolTipRole && index.column() == kKernel) return row->kernel;
  if (role == Qt::ToolTipRole && index.column() == kGroup) return row->group;
  if (role == Qt::ToolTipRole && index.column() == kBandwidth && row->bandwidth) {
    return bandwidth_tip(*row->bandwidth);
  }
  if (role == Qt::ForegroundRole && index.column() == kBandwidth && row->bandwidth &&
      row->bandwidth->held_to_target && !row->bandwidth->meets_target) {
    return QColor(QStringLiteral("#b3261e"));  // held to the target and short of it
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kKernel:
      return row->kernel;
    case kGroup:
      return row->group;
    case kNodes:
      return row->nodes;
    case kMeasured:
      return micros(row->measured_us);
    case kPredicted:
      return micros(row->predicted_us);
    case kBandwidth:
      return row->bandwidth ? QVariant(bandwidth_text(*row->bandwidth)) : QVariant();
    case kGrid:
      return row->grid;
    case kBlock:
      return row->block;
    default:
      return {};
  }
}

QVariant KernelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kKernel:
      return tr("Kernel");
    case kGroup:
      return tr("Group");
    case kNodes:
      return tr("Nodes");
    case kMeasured:
      return tr("Measured µs");
    case kPredicted:
      return tr("Predicted µs");
    case kBandwidth:
      return tr("Bandwidth");
    case kGrid:
      return tr("Grid");
    case kBlock:
      return tr("Block");
    default:
      return {};
  }
}

}  // namespace fxscope::views
