#pragma once
// The Kernels tab's table: one row per kernel group of the shown graph (the run's kernels on its
// nodes, measured and predicted time, launch shape) and one per measured kernel that fell on no
// group. Numbers sort as numbers through kSortRole.

#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <vector>

#include "layout/canvas_graph.h"
#include "layout/heat_overlay.h"

namespace fxscope::views {

struct KernelRow {
  QString kernel;  // the run's kernel names, or the planned group's name when none ran
  QString group;   // the planned group, or the run's own group for a kernel on no group
  int nodes = 0;
  std::optional<double> measured_us;
  std::optional<double> predicted_us;
  QString grid;
  QString block;
  // Achieved bandwidth of the row's (longest) kernel, where an engine run measured it.
  std::optional<report::RunBandwidth> bandwidth;
  std::vector<graph::NodeId> canvas_nodes;  // what a click selects on the canvas
};

// The rows for GRAPH with HEAT's timings (HEAT built from the same graph).
std::vector<KernelRow> kernel_rows(const CanvasGraph& graph, const HeatOverlay& heat);

class KernelsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    kKernel,
    kGroup,
    kNodes,
    kMeasured,
    kPredicted,
    kBandwidth,
    kGrid,
    kBlock,
    kColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit KernelsModel(QObject* parent = nullptr);

  void set_rows(std::vector<KernelRow> rows);
  const KernelRow* row_at(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<KernelRow> rows_;
};

}  // namespace fxscope::views
