#pragma once
// The human form of a CompileTimeReport: the whole run ranked by phase, then each unit's phase
// tree with the check against Dynamo's own total.

#include <string>

#include "fxscope/report/compile_time.h"

namespace fxscope::report {

std::string to_text(const CompileTimeReport& report);

}  // namespace fxscope::report
