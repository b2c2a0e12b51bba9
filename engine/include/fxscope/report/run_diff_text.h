#pragma once
// `fxscope-cli diff A B` as text: a one-line verdict, then what changed, most telling first.

#include <string>

#include "fxscope/report/run_diff.h"

namespace fxscope::report {

// "2 breaks fixed, 1 new recompile at model.py:88 forward, 14 fewer kernels, compile time
// +3.1 s"; "no difference" for a log against itself.
std::string verdict(const RunDiff& diff);

std::string to_text(const RunDiff& diff);

}  // namespace fxscope::report
