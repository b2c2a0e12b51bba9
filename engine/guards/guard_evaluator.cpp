// The walk over a cache entry's guard tree, modelled on torch/csrc/dynamo/guards.cpp:
// RootGuardManager runs its own leaf guards (the global state, the default device ...), then
// its child managers, then the epilogue lambda guards (symbolic shapes); every GuardManager runs
// its leaf guards in order before its children. The fast check (check_nopybind) counts
// failures and re-sorts children; check_verbose, which gives the reason, walks without
// changing anything.

#include "fxscope/guards/guard_evaluator.h"

#include <algorithm>
#include <utility>

#include "guard_checks.h"

namespace fxscope::guards {

namespace {

using detail::CheckResult;
using detail::GuardChecker;
using detail::Outcome;

bool fails(GuardChecker& checker, std::size_t guard) {
  return checker.check(guard).outcome == Outcome::kFail;
}

// GuardManager::check_nopybind: a failing leaf guard counts against its manager; a failing
// child counts against the child (inside its own check) and against this manager, and when an
// earlier child had passed, the children are sorted by failure count, most first
// (check_accessors_nopybind's std::sort with the same comparison).
bool fast_check(const GuardSet& set, std::size_t node, GuardChecker& checker, CheckOrder& order) {
  for (const std::size_t g : set.nodes[node].guards) {
    if (fails(checker, g)) {
      ++order.fail_counts[node];
      return false;
    }
  }
  auto& children = order.children[node];
  bool failed_on_first = true;
  bool result = true;
  for (const std::size_t child : children) {
    if (!fast_check(set, child, checker, order)) {
      ++order.fail_counts[node];
      result = false;
      break;
    }
    failed_on_first = false;
  }
  if (!result && !failed_on_first && set.nodes[node].sorts_children) {
    const auto& counts = order.fail_counts;
    std::sort(children.begin(), children.end(),
              [&counts](std::size_t a, std::size_t b) { return counts[a] > counts[b]; });
  }
  return result;
}

class VerboseWalk {
 public:
  VerboseWalk(const GuardSet& set, GuardChecker& checker, const CheckOrder& order)
      : set_(set), checker_(checker), order_(order) {}

  GuardEvaluation run() {
    bool failed = !set_.nodes.empty() && !node(0);
    for (std::size_t i = 0; !failed && i < set_.epilogue.size(); ++i) {
      failed = !guard(set_.epilogue[i]);
    }
    result_.reused = !failed;
    return std::move(result_);
  }

 private:
  bool node(std::size_t n) {
    for (const std::size_t g : set_.nodes[n].guards) {
      if (!guard(g)) return false;
    }
    for (const std::size_t child : order_.children[n]) {
      if (!node(child)) return false;
    }
    return true;
  }

  bool guard(std::size_t g) {
    const CheckResult& r = checker_.check(g);
    for (const auto& gap : r.gaps) result_.gaps.push_back(gap);
    switch (r.outcome) {
      case Outcome::kFail:
        result_.failed = g;
        result_.reason = r.reason;
        return false;
      case Outcome::kPass:
        ++result_.checked;
        break;
      case Outcome::kKept:
        ++result_.kept;
        break;
      case Outcome::kAssumed:
        ++result_.assumed;
        break;
    }
    return true;
  }

  const GuardSet& set_;
  GuardChecker& checker_;
  const CheckOrder& order_;
  GuardEvaluation result_;
};

}  // namespace

CheckOrder fresh_order(const GuardSet& guards) {
  CheckOrder order;
  order.fail_counts.assign(guards.nodes.size(), 0);
  for (const auto& node : guards.nodes) order.children.push_back(node.children);
  return order;
}

GuardEvaluation evaluate_guards(const GuardSet& guards, const ProposedInput& input) {
  GuardChecker checker(guards, input);
  const CheckOrder order = fresh_order(guards);
  return VerboseWalk(guards, checker, order).run();
}

GuardEvaluation evaluate_call(const GuardSet& guards, const ProposedInput& input,
                              CheckOrder& order) {
  GuardChecker checker(guards, input);
  if (order.children.size() != guards.nodes.size()) order = fresh_order(guards);
  if (!guards.nodes.empty()) fast_check(guards, 0, checker, order);
  return VerboseWalk(guards, checker, order).run();
}

}  // namespace fxscope::guards
