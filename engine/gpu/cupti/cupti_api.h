#pragma once
// CUPTI's Activity API entry points that fxscope's own process calls, bound at run time
// (runtime/cuda_libraries.h): its header gives the types and signatures; the library is loaded
// when a GPU run starts recording. (The injection library, fxscope_cupti.cpp, runs inside
// PyTorch's process and links CUPTI itself.)

#include <cupti.h>

#include <string>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct CuptiApi {
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push_external_id = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop_external_id = nullptr;

  std::string text(CUptiResult r) const;
};

// The process's CUPTI, loaded on the first call; the error names where it was looked for.
Result<const CuptiApi*> cupti_api();

}  // namespace fxscope::gpu
