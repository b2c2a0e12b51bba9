#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

std::vector<const std::string*> kernel_sources(const PlannedSteps& planned) {
  std::vector<const std::string*> out;
  for (const StepPlan& s : planned.steps) {
    for (const auto& v : s.variants) out.push_back(&v.source);
    if (!s.call) continue;
    for (const auto& b : s.call->graphs) {
      for (const std::string* source : kernel_sources(*b.steps)) out.push_back(source);
    }
  }
  return out;
}

}  // namespace fxscope::gpu
