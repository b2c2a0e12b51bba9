#pragma once
// The centre of the window: a toolbar (level, groups, mode, fit, search), a banner for graph
// breaks, the graph canvas and the node inspector. It draws what its ViewContext says (the
// toolbar's boxes show and change the context); graphs are planned and laid out on Qt's thread
// pool into the context's plan cache, the newest request wins and a result arriving after the
// panel is gone is dropped. The graph drawn goes back to the context (set_graph), for the panels
// that list its kernels or compare its unit.

#include <QModelIndex>
#include <QWidget>
#include <cstdint>
#include <optional>

#include "compare/change_marks.h"
#include "compare/comparison.h"
#include "gpu_run/gpu_runner.h"
#include "layout/canvas_graph.h"
#include "layout/heat_overlay.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace fxscope::views {

class GraphCanvas;
class GraphScene;
class ViewContext;

class GraphPanel : public QWidget {
  Q_OBJECT

 public:
  // CONTEXT is the window's; without one (a panel used alone) the panel keeps its own.
  explicit GraphPanel(QWidget* parent = nullptr, ViewContext* context = nullptr);

  ViewContext& context() const { return *context_; }
  // Shows the unit of a CompileUnitsModel row; a frame row shows the frame's first unit.
  void show_row(const QModelIndex& index);
  // Selects and centres the next node whose name or op contains TEXT; false when none does.
  bool search(const QString& text);
  // Selects the nodes named NAMES on the shown graph together and brings the first into view;
  // REASON goes to the status bar. Returns how many were found.
  int highlight_nodes(const QStringList& names, const QString& reason);
  void highlight_node_ids(const std::vector<graph::NodeId>& ids, const QString& reason);

  // Colours the groups by time (measured by the context's GPU run, else predicted) instead of
  // one colour per group.
  void set_heat_shown(bool shown);
  bool heat_shown() const;
  const HeatOverlay& heat() const { return heat_; }

  // A comparison of the shown log with another (null: none): the graph is coloured by what
  // changed in the other log, over the group or heat colours, with a legend.
  void set_comparison(ComparisonPtr comparison);
  const ComparisonPtr& comparison() const { return comparison_; }
  const GraphMarks& marks() const { return marks_; }

  bool busy() const { return pending_; }
  const CanvasGraphPtr& shown() const;
  GraphScene& scene() const { return *scene_; }
  GraphCanvas& canvas() const { return *canvas_; }
  QString banner_text() const;
  QString inspector_text() const;
  // Hands the inspector to a dock of the window (it starts beside the canvas, for a panel used
  // alone); the panel keeps filling it.
  QWidget* take_inspector();
  // Likewise the Kernel source view (the CUDA C of the selected node's kernels), hidden until
  // taken.
  QWidget* take_kernel_source();
  QString kernel_source() const;

 signals:
  // After every finished request, with or without a graph to draw.
  void graph_shown();
  void node_selected(std::size_t id);
  void status(const QString& message);

 private:
  void build_toolbar();
  void on_log_changed();
  void on_view_changed();
  void on_run_changed();
  void request();
  void on_built(CanvasGraphPtr graph);
  void on_node_selected(std::size_t id);
  void update_banner();
  void update_heat();
  void update_marks();

  ViewContext* context_ = nullptr;
  std::uint64_t generation_ = 0;
  bool pending_ = false;
  GraphScene* scene_ = nullptr;
  GraphCanvas* canvas_ = nullptr;
  QComboBox* level_ = nullptr;
  QComboBox* groups_ = nullptr;
  QComboBox* mode_ = nullptr;
  QComboBox* colour_ = nullptr;
  HeatOverlay heat_;
  ComparisonPtr comparison_;
  GraphMarks marks_;
  QLineEdit* search_ = nullptr;
  QLabel* banner_ = nullptr;
  QPlainTextEdit* inspector_ = nullptr;
  QPlainTextEdit* source_ = nullptr;
};

}  // namespace fxscope::views
