#pragma once
// What the window is looking at, in one place: the log, the compile unit (or frame) chosen, the
// level, groups and mode the graph is drawn at, and the GPU run overlaid. Panels observe it
// through its signals and change it through its setters, never through each other's widgets
// (RenderDoc's ICaptureContext is the model). It also keeps the log's planned graphs, so that
// switching back to a mode or level reuses the plan.

#include <QObject>
#include <cstddef>
#include <memory>
#include <optional>

#include "gpu_run/gpu_runner.h"
#include "layout/canvas_graph.h"
#include "layout/plan_cache.h"
#include "window/loaded_log.h"

namespace fxscope::views {

class ViewContext : public QObject {
  Q_OBJECT

 public:
  explicit ViewContext(QObject* parent = nullptr);

  const LoadedLogPtr& log() const { return log_; }
  const std::optional<std::size_t>& unit() const { return unit_; }
  // Set when a frame row, not a unit row, was chosen: the frame's first unit is shown.
  const std::optional<int>& frame() const { return frame_; }
  GraphLevel level() const { return level_; }
  GroupSource groups() const { return groups_; }
  fusion::Mode mode() const { return mode_; }
  const RunResultPtr& run() const { return run_; }
  // The graph to draw for the current unit, level, groups and mode.
  CanvasRequest request() const;
  // The graph drawn for the view: the graph panel plans request() and sets it here once planned,
  // so panels that list its kernels or compare its unit follow the canvas without planning it
  // again. The one shown last stays while the next is planned; null without a log or a unit.
  const CanvasGraphPtr& graph() const { return graph_; }
  // The current log's planned graphs; shared with the workers planning into it, so that one
  // finishing after the log changed fills the old log's cache, not the new one's.
  const std::shared_ptr<PlanCache>& plans() const { return plans_; }

  // Another log: forgets the unit, the run (it names units by id, which another log reuses for
  // other code), the graph and the planned graphs.
  void set_log(LoadedLogPtr log);
  void set_unit(std::size_t unit);
  // FRAME's first unit, remembered as chosen through its frame; false when it has none.
  bool set_frame(int frame);
  void set_level(GraphLevel level);
  void set_groups(GroupSource groups);
  void set_mode(fusion::Mode mode);
  void set_run(RunResultPtr run);
  void set_graph(CanvasGraphPtr graph);

 signals:
  void log_changed();
  // A unit was chosen (again, too: choosing the shown unit shows it anew).
  void unit_changed();
  // The level, the groups or the mode: the graph to draw changed.
  void view_changed();
  void run_changed();
  // A planned graph was set (again, too: choosing the shown unit shows it anew).
  void graph_changed();

 private:
  LoadedLogPtr log_;
  std::optional<std::size_t> unit_;
  std::optional<int> frame_;
  GraphLevel level_ = GraphLevel::kAten;
  GroupSource groups_ = GroupSource::kFxscope;
  fusion::Mode mode_ = fusion::Mode::default_mode;
  RunResultPtr run_;
  CanvasGraphPtr graph_;
  std::shared_ptr<PlanCache> plans_ = std::make_shared<PlanCache>();
};

}  // namespace fxscope::views
