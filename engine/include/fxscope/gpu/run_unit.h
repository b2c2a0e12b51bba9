#pragma once
// Which compile unit `fxscope-cli run` runs when --unit is not given, the same for both backends
// (an A/B of their defaults compares one graph): the first unit in log order that has an ATen
// graph and an fx_graph_runnable (what the PyTorch backend re-runs), else the first with an ATen
// graph (logs of a PyTorch without runnables; only the engine can run those).

#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/graph.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::gpu {

const trace::CompileUnit* default_run_unit(const trace::TraceLog& log);

// The sizes UNIT's symbols took when it was compiled (its create_symbol records): what a run sizes
// its inputs and plans its steps by.
ops::SymbolHints unit_hints(const trace::CompileUnit& unit);

// "unit 2/0 (the first with an ATen graph and a runnable; --unit picks another)", for stderr.
std::string default_unit_line(const trace::CompileUnit& unit);

// Tensor constants (`torch.tensor(64.)` in the model's forward, lifted into the graph) whose
// values reach EAGER's outputs (the unit's AOT graph) more often than the compiled graph's: the
// log records no constant's value, so eager computes from random ones where Inductor folded the
// constant into a number. Empty when eager is a reference; else one line saying how many.
std::string unrecorded_constants(const graph::Graph& eager, const trace::CompileUnit& unit);

// The graph eager runs for UNIT, planned one op a kernel: the AOT graph, as PyTorch's eager runs
// it; or, where that computes from tensor constants the log does not record
// (unrecorded_constants), the first post-grad graph, whose constants Inductor folded into numbers,
// so that the compiled modes have a reference of the same values. NOTE then says which.
fusion::GraphFusion eager_reference(const trace::CompileUnit& unit, std::string& note);
// F (a compiled graph) planned one op a kernel, without Inductor's plan: eager's reference on the
// post-grad graph (eager_reference), forward and backward alike.
fusion::GraphFusion planned_as_eager(fusion::GraphFusion f);

}  // namespace fxscope::gpu
