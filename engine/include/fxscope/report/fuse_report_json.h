#pragma once
// The JSON form of a FuseReport (`fxscope-cli fuse --json`); fields in docs/cli-json.md.

#include <nlohmann/json_fwd.hpp>

#include "fxscope/report/fuse_report.h"

namespace fxscope::report {

nlohmann::json to_json(const FuseReport& report);

}  // namespace fxscope::report
