#pragma once
// The JSON form of a RunDiff (`fxscope-cli diff --json`); fields in docs/cli-json.md.

#include <nlohmann/json_fwd.hpp>

#include "fxscope/report/run_diff.h"

namespace fxscope::report {

nlohmann::json to_json(const RunDiff& diff);

}  // namespace fxscope::report
