#pragma once
// Inductor's real kernels read into plan form: one group per launch of the output code, its
// members the post-grad nodes it runs, from the provenance mapping when the log has one (exact,
// per launch), else from the kernel's `# Graph fragment:` header (its non-placeholder nodes; a
// kernel launched several times has one header, that of its first use).

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/inductor/provenance.h"

namespace fxscope::fusion {

// The groups of CODE over POST_GRAD; PROVENANCE may be null. Extern launches map to the extern
// node (by provenance handle, else the next unused post-grad node of the same op). Names that
// are not in POST_GRAD become warnings.
FusionPlan inductor_plan(const inductor::OutputCode& code, const graph::Graph& post_grad,
                         const inductor::Provenance* provenance);

}  // namespace fxscope::fusion
