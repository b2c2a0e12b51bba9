#pragma once
// The GPU a run uses (device 0), opened through the static CUDA runtime: it loads libcuda.so.1
// at run time, so a binary built with CUDA starts on a machine without the driver and only
// `run` says that none is there.

#include <string>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct CudaDevice {
  std::string name;  // "NVIDIA H200"
  int major = 0;     // compute capability
  int minor = 0;
  int runtime_version = 0;
  int driver_version = 0;
  int sms = 0;        // streaming multiprocessors
  int clock_khz = 0;  // the SMs' peak clock

  std::string arch() const { return "sm_" + std::to_string(major * 10 + minor); }
};

// Device 0, made current; one line naming what is missing when there is no driver or GPU.
Result<CudaDevice> open_cuda_device();

}  // namespace fxscope::gpu
