#include "runtime/step_order.h"

#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>

namespace fxscope::gpu {

void order_by_dependences(std::vector<StepPlan>& steps,
                          const std::function<graph::NodeId(graph::NodeId)>& base,
                          const std::function<bool(graph::NodeId)>& is_input) {
  const std::size_t n = steps.size();
  std::map<graph::NodeId, std::vector<std::size_t>> writers;  // buffer -> steps, plan order
  for (std::size_t i = 0; i < n; ++i) {
    std::set<graph::NodeId> bases;
    for (const graph::NodeId w : steps[i].writes) bases.insert(base(w));
    for (const graph::NodeId b : bases) writers[b].push_back(i);
  }
  std::vector<std::set<std::size_t>> after(n);  // after[i]: steps that must run before step i
  bool out_of_order = false;
  for (std::size_t i = 0; i < n; ++i) {
    for (const graph::NodeId r : steps[i].reads) {
      const graph::NodeId b = base(r);
      const auto it = writers.find(b);
      if (it == writers.end()) continue;
      bool earlier = false;
      bool own = false;  // a step that writes what it reads (in place) reads its own write
      for (const std::size_t j : it->second) {
        if (j < i) {
          after[i].insert(j);  // the value it reads
          earlier = true;
        }
        own = own || j == i;
      }
      if (earlier || own || is_input(b)) {
        // It reads the value held now: a later write to the buffer waits for it.
        for (const std::size_t j : it->second) {
          if (j > i) after[j].insert(i);
        }
      } else {
        for (const std::size_t j : it->second) {
          if (j > i) {
            after[i].insert(j);
            out_of_order = true;
          }
        }
      }
    }
    for (const graph::NodeId w : steps[i].writes) {
      for (const std::size_t j : writers[base(w)]) {
        if (j > i) after[j].insert(i);  // writes to one buffer keep their order
      }
    }
  }
  // A split reduction's second pass reads the partial states its first pass leaves in scratch:
  // no buffer of the graph carries that dependence, so it is added here.
  std::map<std::pair<graph::NodeId, std::string>, std::vector<std::size_t>> partial_writers;
  for (std::size_t i = 0; i < n; ++i) {
    if (steps[i].variants.empty()) continue;
    for (const auto& p : steps[i].variants.front().params) {
      if (p.scratch_elements > 0 && p.written) partial_writers[{p.node, p.dtype}].push_back(i);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (steps[i].variants.empty()) continue;
    for (const auto& p : steps[i].variants.front().params) {
      if (p.scratch_elements <= 0) continue;
      const auto it = partial_writers.find({p.node, p.dtype});
      if (it == partial_writers.end()) continue;
      for (const std::size_t j : it->second) {
        // A middle pass both reads and writes the partial states: it follows the writers
        // before it in the plan.
        if (p.written && j >= i) continue;
        after[i].insert(j);
        out_of_order = out_of_order || j > i;
      }
    }
  }
  if (!out_of_order) return;
  // Kahn's algorithm taking the earliest ready step each time: the plan's order where it holds.
  std::vector<std::vector<std::size_t>> before(n);
  std::vector<std::size_t> waiting(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    waiting[i] = after[i].size();
    for (const std::size_t j : after[i]) before[j].push_back(i);
  }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  std::vector<std::size_t> order;
  std::vector<bool> placed(n, false);
  while (order.size() < n) {
    if (ready.empty()) {
      // A cycle (two steps each needing the other's write): the rest keep the plan's order, and
      // the read before its write is reported as it was.
      for (std::size_t i = 0; i < n; ++i) {
        if (!placed[i]) order.push_back(i);
      }
      break;
    }
    const std::size_t i = ready.top();
    ready.pop();
    placed[i] = true;
    order.push_back(i);
    for (const std::size_t j : before[i]) {
      if (--waiting[j] == 0) ready.push(j);
    }
  }
  std::vector<StepPlan> sorted;
  sorted.reserve(n);
  for (const std::size_t i : order) sorted.push_back(std::move(steps[i]));
  steps = std::move(sorted);
}

}  // namespace fxscope::gpu
