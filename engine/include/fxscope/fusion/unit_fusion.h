#pragma once
// Fusion of one compile unit of a log: each post-grad graph (forward, and backward in training)
// planned in a mode beside the kernels Inductor generated for it, with the agreement of the two.

#include <string>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/fusion/agreement.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/graph/graph.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::fusion {

// One post-grad graph of a unit, planned and compared.
struct GraphFusion {
  std::string where;  // "[0/0] inductor_post_grad_graph line 1234"
  graph::Graph post_grad;
  FusionPlan ours;
  FusionPlan inductor;  // empty when the unit has no output code for this graph
  AgreementReport agreement;
  Warnings warnings;
  ops::SymbolHints hints;  // the values of symbolic sizes it was planned with
};

// OPTIONS completed from UNIT: the values of its symbols (unless OPTIONS has them), the inputs a
// CUDA graph keeps static, and whether it is an inference unit.
PlanOptions plan_options(const trace::CompileUnit& unit, PlanOptions options);

// CODE, one of UNIT's trace::CompileUnit::inductor_codes(), read: Python output code, or
// AOTInductor's C++ wrapper with the kernels (and their headers) of the unit's autotune module.
inductor::OutputCode read_inductor_code(const trace::CompileUnit& unit,
                                        const trace::Artifact& code);

// Plans every post-grad graph of UNIT in MODE, pairing the N-th post-grad graph with the N-th
// output code. Symbol hints come from the unit's create_symbol records unless OPTIONS has them.
// Eager plans the unit's AOT graphs instead (trace::CompileUnit::aot_graphs: forward, and
// backward in training), as does a unit without a post-grad graph, with a warning.
std::vector<GraphFusion> fuse_unit(const trace::CompileUnit& unit, Mode mode,
                                   const PlanOptions& options = {});

}  // namespace fxscope::fusion
