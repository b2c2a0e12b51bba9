#pragma once
// Which compile unit `fxscope-cli run` runs when --unit is not given, the same for both backends
// (an A/B of their defaults compares one graph): the first unit in log order that has an ATen
// graph and an fx_graph_runnable (what the PyTorch backend re-runs), else the first with an ATen
// graph (logs of a PyTorch without runnables; only the engine can run those).

#include <string>

#include "fxscope/trace/trace_log.h"

namespace fxscope::gpu {

const trace::CompileUnit* default_run_unit(const trace::TraceLog& log);

// "unit 2/0 (the first with an ATen graph and a runnable; --unit picks another)", for stderr.
std::string default_unit_line(const trace::CompileUnit& unit);

}  // namespace fxscope::gpu
