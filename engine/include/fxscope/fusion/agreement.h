#pragma once
// How far a plan agrees with Inductor's real kernels: launch counts, and for every Inductor
// kernel whether the plan has a group with exactly its set of post-grad nodes.

#include <cstddef>
#include <string>
#include <vector>

#include "fxscope/fusion/fusion_plan.h"

namespace fxscope::fusion {

// One Inductor kernel and the plan's closest group (most shared nodes) when none is exact.
struct KernelAgreement {
  // The subgraph both group indices refer to (subgraph_plan), "" for the graph itself.
  std::string subgraph;
  std::size_t inductor_group = 0;  // index into the Inductor plan's groups
  std::size_t closest_group = 0;   // index into our plan's groups (valid when ours has groups)
  bool exact = false;
};

// Launches ours vs Inductor's, and the per-kernel verdicts. Without provenance a kernel launched
// several times is compared once (its header names one launch); with it, every launch is.
struct AgreementReport {
  std::size_t our_launches = 0;
  std::size_t inductor_launches = 0;
  std::vector<KernelAgreement> kernels;  // generated (non-extern) Inductor kernels

  std::size_t exact_count() const;
  double exact_share() const;   // 1.0 when there is nothing to compare
  double launch_ratio() const;  // ours / Inductor's
};

// Compares OURS with INDUCTOR, both over the same post-grad graph.
AgreementReport compare_plans(const FusionPlan& ours, const FusionPlan& inductor);

}  // namespace fxscope::fusion
