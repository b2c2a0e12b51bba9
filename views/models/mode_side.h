#pragma once
// One side of the A/B tab: a mode of a compile unit as measured by a GPU run, or, where the run
// did not measure it (or there is no run), as fxscope plans and the cost model prices it.

#include <string>

#include "fxscope/core/result.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/report/run_result.h"
#include "fxscope/report/run_result_comparison.h"
#include "window/loaded_log.h"

namespace fxscope::views {

// UNIT_ID of LOG planned in MODE and priced on the canvas's device. Slow on big graphs: off
// the UI thread.
Result<report::ModeSide> predicted_side(const LoadedLog& log, const std::string& unit_id,
                                        fusion::Mode mode);

// RUN's measurement of MODE when RUN is of UNIT_ID and measured it, else the prediction.
Result<report::ModeSide> mode_side(const LoadedLog& log, const report::RunResult* run,
                                   const std::string& unit_id, fusion::Mode mode);

}  // namespace fxscope::views
