#pragma once
// NVRTC's entry points that fxscope calls, bound at run time (runtime/cuda_libraries.h): the
// header gives the types and signatures; the library is loaded by the first kernel compile.
// NVRTC finds its builtins (libnvrtc-builtins) beside itself.

#include <nvrtc.h>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct NvrtcApi {
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  decltype(&nvrtcCreateProgram) create_program = nullptr;
  decltype(&nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&nvrtcCompileProgram) compile_program = nullptr;
  decltype(&nvrtcGetProgramLogSize) program_log_size = nullptr;
  decltype(&nvrtcGetProgramLog) program_log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
};

// The process's NVRTC, loaded on the first call; the error names where it was looked for.
Result<const NvrtcApi*> nvrtc_api();

}  // namespace fxscope::gpu
