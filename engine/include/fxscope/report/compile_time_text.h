#pragma once
// The human form of a CompileTimeReport: the whole run ranked by phase, then each unit's phase
// tree with the check against Dynamo's own total.

#include <string>

#include "fxscope/report/compile_time.h"

namespace fxscope::report {

std::string to_text(const CompileTimeReport& report);
// One unit's part of it: its phase trees, caches, guards and Triton compiles.
std::string to_text(const UnitCompileTime& unit);
// The whole run's part of it: the summary line and the phases ranked over every unit.
std::string run_text(const CompileTimeReport& report);

}  // namespace fxscope::report
