#pragma once
// The human form of a Summary: compile units as a tree by frame, then graph breaks, recompiles
// and warnings, in words a PyTorch user reads without the log at hand.

#include <string>

#include "fxscope/report/summary.h"

namespace fxscope::report {

std::string to_text(const Summary& summary);

}  // namespace fxscope::report
