#pragma once
// The JSON form of a FuseReport (`fxscope-cli fuse --json`); fields are listed in README.md.

#include <nlohmann/json.hpp>

#include "fxscope/report/fuse_report.h"

namespace fxscope::report {

nlohmann::json to_json(const FuseReport& report);

}  // namespace fxscope::report
