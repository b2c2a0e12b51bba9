#pragma once
// Timing of one prepared mode: warm-up, then repeats timed with CUDA events around each call,
// the host time spent issuing its launches, and CUPTI's kernel records of every repeat mapped
// to the plan step (group and nodes) that launched them.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <vector>

#include "cupti/cupti_activity.h"
#include "fxscope/gpu/engine_run.h"
#include "runtime/executable.h"

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

// Microseconds a device-to-device copy moving each of BYTES (read + written) takes, into CACHE
// (sizes already there are not measured again): CUPTI's duration of the copy, as kernels are
// timed, the median of 10 after 3 warm-ups, each reading a different part of a 256 MiB buffer so
// that it comes from memory, not L2. A kernel's bandwidth is judged against a copy of its own
// size: launch ramp and tail cap a copy of 19 MB at 76% of the 256 MiB copy's bandwidth on an
// H200, and one of 2 MB at 32%. Sizes over 256 MiB take the 256 MiB copy's rate; nothing is
// measured without CUPTI.
void measure_copy_us(cudaStream_t stream, CuptiActivity* cupti, const std::vector<double>& bytes,
                     double copy_gbps, std::map<std::uint64_t, double>& cache);

// The same copies as measure_copy_us, made by a kernel (KERNELS' copies: 16-byte loads and
// stores, one or four a thread, the faster at each size) rather than by cudaMemcpy, which may run
// on the copy engine with a fixed cost of its own: microseconds by bytes moved, into CACHE.
class ReferenceKernels;
void measure_copy_kernel_us(cudaStream_t stream, CuptiActivity* cupti,
                            const ReferenceKernels& kernels, const std::vector<double>& bytes,
                            std::map<std::uint64_t, double>& cache);

// CUPTI's duration of an empty kernel of one block (median of 20): the fixed cost every kernel's
// time includes; 0 when it cannot be measured.
double measure_empty_kernel_us(cudaStream_t stream, CuptiActivity* cupti,
                               const ReferenceKernels& kernels);

}  // namespace fxscope::gpu
