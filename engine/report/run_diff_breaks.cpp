#include <algorithm>

#include "fxscope/report/run_diff.h"

namespace fxscope::report {
namespace {

// The frame of the unit COMPILE_ID on one side of DIFF, from the units the diff lists.
trace::StackFrame frame_of(const RunDiff& diff, const std::string& compile_id, bool a_side) {
  for (const auto& u : diff.matched) {
    const DiffUnit& unit = a_side ? u.a : u.b;
    if (unit.compile_id == compile_id) return unit.frame;
  }
  for (const auto& unit : a_side ? diff.only_a : diff.only_b) {
    if (unit.compile_id == compile_id) return unit.frame;
  }
  return {};
}

}  // namespace

std::vector<UnitBreaks> breaks_by_unit(const RunDiff& diff, const std::vector<BreakChange>& breaks,
                                       bool a_side) {
  std::vector<UnitBreaks> out;
  const auto unit_of = [&out](const std::string& id) {
    return std::find_if(out.begin(), out.end(),
                        [&id](const UnitBreaks& u) { return u.compile_id == id; });
  };
  for (const auto& change : breaks) {
    // A break no compile id names (a log cut short) still belongs somewhere: an unnamed unit.
    const std::vector<std::string> ids =
        change.compile_ids.empty() ? std::vector<std::string>{""} : change.compile_ids;
    for (const auto& id : ids) {
      auto it = unit_of(id);
      if (it == out.end()) {
        out.push_back({id, id.empty() ? trace::StackFrame{} : frame_of(diff, id, a_side), {}});
        it = std::prev(out.end());
      }
      it->breaks.push_back(change);
    }
  }
  return out;
}

}  // namespace fxscope::report
