#include "run/planted_fault.h"

#include <cstdlib>

namespace fxscope::gpu {

std::string with_faulting_store(const std::string& source, const std::string& entry) {
  const std::size_t global = source.find("__global__");
  if (global == std::string::npos) return source;
  const std::size_t name = source.find(entry + "(", global);
  if (name == std::string::npos) return source;
  const std::size_t body = source.find('{', name);
  if (body == std::string::npos) return source;
  // One thread stores, so the fault is the device's (an illegal address), not a race.
  const std::string store =
      "\n  if (threadIdx.x == 0 && blockIdx.x == 0) *(volatile int*)16 = 1;  // planted fault\n";
  return source.substr(0, body + 1) + store + source.substr(body + 1);
}

std::string plant_fault_if_asked(const std::string& mode, PlannedSteps& steps) {
  const char* asked = std::getenv(kPlantFaultVariable);
  if (asked == nullptr || mode != asked) return "";
  for (StepPlan& step : steps.steps) {
    if (step.kind != StepKind::generated || step.variants.empty()) continue;
    for (codegen::GeneratedKernel& v : step.variants)
      v.source = with_faulting_store(v.source, v.entry);
    return step.group_name;
  }
  return "";
}

}  // namespace fxscope::gpu
