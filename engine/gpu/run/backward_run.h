#pragma once
// A training unit's backward graph run after its forward in the same mode, as the compiled
// autograd function runs it: the forward's saved tensors (its outputs, already on the host) feed
// the backward's inputs, the incoming gradients (tangents) are seeded random values.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "cupti/cupti_activity.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/engine_run.h"
#include "fxscope/gpu/output_compare.h"
#include "runtime/executable.h"

namespace fxscope::gpu {

struct BackwardSetup {
  std::string mode;
  const fusion::GraphFusion* forward = nullptr;
  const fusion::GraphFusion* backward = nullptr;
  const std::vector<HostOutput>* forward_outputs = nullptr;
  ops::SymbolHints hints;
  std::uint64_t seed = 0;
  int warmup = 5;
  int repeats = 20;
  bool cuda_graph = false;
  bool clusters = false;
};

struct BackwardResult {
  EngineMode mode;
  std::vector<HostOutput> outputs;     // the gradients, for the comparison with eager's
  std::vector<HostOutput> reference;   // eager's: its graph run in f32 on the same inputs
  std::unique_ptr<Executable> loaded;  // kept loaded to the end of the run (CUPTI's names)
  std::vector<std::string> notes;
};

BackwardResult run_backward(const BackwardSetup& setup, const EngineCompiler& compiler,
                            cudaStream_t stream, CuptiActivity* tagger,
                            const std::function<void(const std::string&)>& say);

}  // namespace fxscope::gpu
