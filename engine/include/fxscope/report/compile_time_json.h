#pragma once
// The JSON form of a CompileTimeReport (`fxscope-cli compile-time --json`); fields in
// docs/cli-json.md.

#include <nlohmann/json_fwd.hpp>

#include "fxscope/report/compile_time.h"

namespace fxscope::report {

nlohmann::json to_json(const CompileTimeReport& report);

}  // namespace fxscope::report
