#pragma once
// Timing of one prepared mode: warm-up, then repeats timed with CUDA events around each call,
// the host time spent issuing its launches, and CUPTI's kernel records of every repeat mapped
// to the plan step (group and nodes) that launched them.

#include <cuda_runtime_api.h>

#include "cupti_activity.h"
#include "executable.h"
#include "fxscope/gpu/engine_run.h"

namespace fxscope::gpu {

struct MeasureOptions {
  int warmup = 5;
  int repeats = 20;
  bool cuda_graph = false;
};

// Fills MODE.measured and host_launch_us; returns "" or the error that stopped it.
std::string measure_mode(Executable& exe, const graph::Graph& graph, cudaStream_t stream,
                         CuptiActivity* cupti, const MeasureOptions& options, EngineMode& mode);

// Device-to-device copy bandwidth (bytes read + written per second, GB/s), the reference for
// memory-bound kernels; 0 when it cannot be measured.
double measure_copy_gbps(cudaStream_t stream);

}  // namespace fxscope::gpu
