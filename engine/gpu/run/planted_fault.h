#pragma once
// A fault planted on purpose, to show that one mode's CUDA fault costs that mode only:
// FXSCOPE_PLANT_FAULT=MODE makes MODE's first generated kernel write to an unmapped address
// (cudaErrorIllegalAddress, which poisons the CUDA context as a real out-of-bounds write does).

#include <string>

#include "fxscope/gpu/step_plan.h"

namespace fxscope::gpu {

inline constexpr const char* kPlantFaultVariable = "FXSCOPE_PLANT_FAULT";

// Rewrites the first generated step of STEPS (every variant of it) when the variable names MODE;
// returns the step's group name, or "" when nothing was planted.
std::string plant_fault_if_asked(const std::string& mode, PlannedSteps& steps);

// SOURCE with a store to an unmapped address at the start of ENTRY's body; SOURCE unchanged when
// ENTRY's body is not found.
std::string with_faulting_store(const std::string& source, const std::string& entry);

}  // namespace fxscope::gpu
