#include "layout/plan_cache.h"

namespace fxscope::views {

PlanCache::Key PlanCache::key_of(const CanvasRequest& request) {
  return {request.unit, int(request.level), int(request.groups), int(request.mode)};
}

CanvasGraphPtr PlanCache::find(const CanvasRequest& request) const {
  const std::lock_guard lock(mutex_);
  const auto it = graphs_.find(key_of(request));
  return it == graphs_.end() ? nullptr : it->second;
}

CanvasGraphPtr PlanCache::get(const LoadedLog& log, const CanvasRequest& request) {
  if (CanvasGraphPtr known = find(request)) return known;
  // Planned outside the lock: a big graph takes seconds, and other requests may look up or plan
  // meanwhile. Two requests for one graph at once both plan it; the first kept wins.
  CanvasGraphPtr built = build_canvas_graph(log, request);
  const std::lock_guard lock(mutex_);
  ++plans_;
  const Key key = key_of(request);
  const auto [it, fresh] = graphs_.emplace(key, std::move(built));
  CanvasGraphPtr kept = it->second;
  if (fresh) order_.push_back(key);
  if (order_.size() > kMaxGraphs) {
    graphs_.erase(order_.front());
    order_.pop_front();
  }
  return kept;
}

std::size_t PlanCache::plans() const {
  const std::lock_guard lock(mutex_);
  return plans_;
}

}  // namespace fxscope::views
