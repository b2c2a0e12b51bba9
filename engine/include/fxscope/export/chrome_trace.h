#pragma once
// Chrome's trace-event JSON (chrome://tracing, Perfetto): the kernels of a GPU run, or without
// one, the predicted kernels of a plan laid end to end and labelled as predicted.

#include <nlohmann/json_fwd.hpp>

#include "fxscope/export/planned_unit.h"
#include "fxscope/report/run_result.h"

namespace fxscope::exporting {

// From a run `fxscope-cli run --json` printed (report::read_run_result): one process per mode,
// one complete event per kernel of the mode (its time per repeat; calls, group and nodes in
// args), in the run's order.
nlohmann::json chrome_trace_from_run(const report::RunResult& run);

// The plan's kernels in launch order with their predicted times, one thread per graph.
nlohmann::json predicted_chrome_trace(const PlannedUnit& planned);

}  // namespace fxscope::exporting
