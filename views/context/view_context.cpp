#include "context/view_context.h"

#include <utility>

namespace fxscope::views {

ViewContext::ViewContext(QObject* parent) : QObject(parent) {}

CanvasRequest ViewContext::request() const {
  return {unit_.value_or(0), level_, groups_, mode_};
}

void ViewContext::set_log(LoadedLogPtr log) {
  log_ = std::move(log);
  unit_.reset();
  frame_.reset();
  run_.reset();
  graph_.reset();
  plans_ = std::make_shared<PlanCache>();
  emit log_changed();
}

void ViewContext::set_unit(std::size_t unit) {
  unit_ = unit;
  frame_.reset();
  emit unit_changed();
}

bool ViewContext::set_frame(int frame) {
  if (!log_) return false;
  const auto& units = log_->summary.units;
  for (std::size_t u = 0; u < units.size(); ++u) {
    if (units[u].frame_id != frame) continue;
    unit_ = u;
    frame_ = frame;
    emit unit_changed();
    return true;
  }
  return false;
}

void ViewContext::set_level(GraphLevel level) {
  if (level_ == level) return;
  level_ = level;
  emit view_changed();
}

void ViewContext::set_groups(GroupSource groups) {
  if (groups_ == groups) return;
  groups_ = groups;
  emit view_changed();
}

void ViewContext::set_mode(fusion::Mode mode) {
  if (mode_ == mode) return;
  mode_ = mode;
  emit view_changed();
}

void ViewContext::set_run(RunResultPtr run) {
  run_ = std::move(run);
  emit run_changed();
}

void ViewContext::set_graph(CanvasGraphPtr graph) {
  graph_ = std::move(graph);
  emit graph_changed();
}

}  // namespace fxscope::views
