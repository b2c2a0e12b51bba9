#pragma once
// Independent jobs on the machine's cores: summarising a log's compile units, compiling a run's
// kernels with NVRTC.

#include <cstddef>
#include <functional>

namespace fxscope {

// Calls JOB(i) for every i in [0, COUNT) on up to hardware_concurrency threads (the calling one
// among them), each taking the next index not yet taken, so that a slow job does not hold back
// the ones striped after it; returns when all are done. JOB must not throw.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& job);

}  // namespace fxscope
