#pragma once
// What bench_memory_kernels' sections share: CUPTI records of every kernel and device-to-device
// copy, buffer sets rotated through so that reads come from memory, not L2, and the references a
// form is printed against (a same-size copy kernel and cudaMemcpy).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../check_cuda.h"

namespace fxbench {

constexpr int kSets = 48;  // buffer sets rotated through: 48 x the largest form > 50 MB of L2
constexpr int kWarmup = 5;
constexpr int kReps = 30;

struct Word {
  unsigned x, y, z, w;
};

struct Refs {
  double copy_kernel_us;
  double memcpy_us;
};

// Starts recording kernels and copies; prints the device.
void start_recording();
double median(std::vector<double> v);
// N floats on the device, filled with the same values in [-1, 1) every time.
float* device_floats(std::size_t n);
// The durations recorded of kernels whose (mangled) name holds PREFIX, or of "memcpy <bytes>",
// less the warm-ups; they are forgotten.
std::vector<double> take(const std::string& prefix);
// The references of BYTES moved (read + written): the copy kernel and cudaMemcpy of half each way,
// over the sets of buffers SRC and DST (20 MB each).
Refs references(double bytes, const Word* const* src, Word* const* dst);
// The reference copy kernel (recorded as "ref_copy"): N 16-byte words from SRC to DST on S.
void launch_reference_copy(const Word* src, Word* dst, long long n, cudaStream_t s);
// CUPTI's median duration of an empty kernel.
double empty_kernel_us();
// One line: LABEL, BYTES, the median and min of US, and the shares of the references.
void print(const char* label, double bytes, const std::vector<double>& us, const Refs& r);

// BENCH_WARM=1: every launch on the first set, so reads come from L2 as in a model, where a
// kernel reads what the one before it wrote (and `fxscope-cli run`'s same-size copy reads its
// source again and again): GPT-2's 1.19 MB copy took 1.41 us in the model against 2.27 us here
// from memory.
bool warm_l2();

// Runs LAUNCH(set) kWarmup + kReps times over the buffer sets; the records come at take().
template <class F>
void repeat(F&& launch) {
  for (int i = 0; i < kWarmup + kReps; ++i) launch(warm_l2() ? 0 : i % kSets);
  CHECK_CUDA(cudaDeviceSynchronize());
}

}  // namespace fxbench
