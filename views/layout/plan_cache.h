#pragma once
// The canvas graphs (plan, prices and layout) of one log by request (unit, level, groups, mode):
// switching the mode or the level back shows the graph planned before instead of planning it
// again. It keeps the kMaxGraphs most recently planned, so that walking every unit of a big log
// does not hold every graph. Thread-safe: planning runs on Qt's thread pool while the UI thread
// looks up.

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

#include "layout/canvas_graph.h"

namespace fxscope::views {

class PlanCache {
 public:
  // The graph planned for REQUEST, or null when it was not.
  CanvasGraphPtr find(const CanvasRequest& request) const;
  // The graph of REQUEST: the one planned before, else planned now (build_canvas_graph) and kept.
  // LOG must be the one log this cache is for.
  CanvasGraphPtr get(const LoadedLog& log, const CanvasRequest& request);
  // How many graphs were planned since the cache was made: each distinct request once, while it
  // is kept.
  std::size_t plans() const;

  static constexpr std::size_t kMaxGraphs = 24;

 private:
  using Key = std::tuple<std::size_t, int, int, int>;
  static Key key_of(const CanvasRequest& request);

  mutable std::mutex mutex_;
  std::map<Key, CanvasGraphPtr> graphs_;
  std::deque<Key> order_;  // of planning, oldest first
  std::size_t plans_ = 0;
};

}  // namespace fxscope::views
