// The reference kernels' source and launches.

#include "reference_kernels.h"

#include <algorithm>

namespace fxscope::gpu {
namespace {

// Four 16-byte words a thread, all four loaded before any is stored, in chunks of 256 x 4 words
// (a chunk a block; blocks stride over chunks past the grid). Of nine forms timed from memory on
// the H200 (bench_memory_kernels: 128-1024 threads, 1-4 words, read-only loads and streaming
// stores), this was within 5% of the fastest at every size from 1.2 to 4.8 MB, and 10-15% faster
// than a word a thread over a grid-stride loop, the form before it.
constexpr const char* kSource = R"(
struct fx_reference_word { unsigned int x, y, z, w; };
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy(const fx_reference_word* __restrict__ src,
                       fx_reference_word* __restrict__ dst, long long n) {
  for (long long c = (long long)blockIdx.x * 1024; c < n; c += (long long)gridDim.x * 1024) {
    fx_reference_word v[4];
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = c + k * 256 + threadIdx.x;
      if (i < n) v[k] = src[i];
    }
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = c + k * 256 + threadIdx.x;
      if (i < n) dst[i] = v[k];
    }
  }
}
extern "C" __global__ void fxscope_reference_empty() {}
)";

}  // namespace

Result<ReferenceKernels> ReferenceKernels::load(const EngineCompiler& compiler) {
  const std::string where = "the reference copy kernel";
  auto image = compiler.compile(kSource, where);
  if (!image) return image.error();
  auto copy = KernelImage::load(*image, kCopyName, where);
  if (!copy) return copy.error();
  auto empty = KernelImage::load(*image, kEmptyName, "the reference empty kernel");
  if (!empty) return empty.error();
  ReferenceKernels k;
  k.copy_ = std::move(*copy);
  k.empty_ = std::move(*empty);
  return k;
}

cudaError_t ReferenceKernels::copy(const void* src, void* dst, long long n16,
                                   cudaStream_t stream) const {
  // A block a chunk of 1024 words, up to 16 blocks of 256 per SM of an H200: one wave.
  const long long grid = std::clamp<long long>((n16 + 1023) / 1024, 1, 132 * 16);
  void* args[] = {&src, &dst, &n16};
  return copy_->launch(grid, 256, 0, args, stream);
}

cudaError_t ReferenceKernels::empty(cudaStream_t stream) const {
  return empty_->launch(1, 32, 0, nullptr, stream);
}

}  // namespace fxscope::gpu
