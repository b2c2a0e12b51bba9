#pragma once
// Where a compile unit's graph meets its neighbours across a graph break: Dynamo compiled the
// code before the break as one unit and resumed after it in a function it names
// `torch_dynamo_resume_in_<function>_at_<line>`, compiled as another. The canvas draws each cut
// as a dashed line with the break's reason and a stub of the unit on the other side.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/report/summary.h"

namespace fxscope::views {

struct UnitCut {
  bool below = true;      // the unit broke (cut under its graph), or it resumes one (above)
  std::string reason;     // "graph break at capture.py:83: Unsupported Tensor.item() call ..."
  std::string neighbour;  // "[1/0] torch_dynamo_resume_in_forward_at_83"; empty when not logged
  std::optional<std::size_t> neighbour_unit;  // its index in the summary's units
};

// The cuts of UNIT (an index into SUMMARY's units): one below per graph break it ended in, one
// above when it is the resumption of an earlier unit's break.
std::vector<UnitCut> unit_cuts(const report::Summary& summary, std::size_t unit);

}  // namespace fxscope::views
