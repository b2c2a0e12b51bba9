#pragma once
// The JSON form of a Summary (`fxscope-cli summary --json`); fields in docs/cli-json.md.

#include <nlohmann/json_fwd.hpp>

#include "fxscope/report/summary.h"

namespace fxscope::report {

nlohmann::json to_json(const Summary& summary);
nlohmann::json to_json(const trace::StackFrame& frame);
nlohmann::json to_json(const Warnings& warnings);

}  // namespace fxscope::report
