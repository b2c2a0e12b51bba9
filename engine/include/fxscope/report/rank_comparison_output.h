#pragma once
// `fxscope-cli summary DIR --all-ranks` as JSON (fields in docs/cli-json.md) and as text.

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "fxscope/report/rank_comparison.h"

namespace fxscope::report {

nlohmann::json to_json(const RankComparison& comparison);

// The per-rank table, then the divergences in plain words, most harmful first.
std::string to_text(const RankComparison& comparison);

}  // namespace fxscope::report
