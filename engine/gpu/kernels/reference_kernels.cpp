// The reference kernels' source and launches.

#include "kernels/reference_kernels.h"

#include <algorithm>

namespace fxscope::gpu {
namespace {

// Two forms of a copy, each timed at every size and the faster kept as the reference, since
// neither is the faster everywhere: a 16-byte word a thread over a grid-stride loop, and four
// words a thread, all four loaded before any is stored, a block a chunk of 1024 words. Timed
// from memory in bench_memory_kernels (nine forms, 1.2-4.8 MB), four words a thread was within 5%
// of the fastest and 10-15% faster than a word a thread; in the engine's own timing on the H200
// it was 20-40% slower than a word a thread at 1.2-2.4 MB.
constexpr const char* kSource = R"(
struct fx_reference_word { unsigned int x, y, z, w; };
// Word I of the source: the first N_SRC words from SRC, the rest from REST. The copy timed in a
// kernel's place reads what the step before the kernel wrote (copy_in_place.h), which may be
// smaller than the kernel's bytes, and then memory as the copy alone does. The plain copies pass
// N_SRC = N, so the test is the loop's own and compiles away.
__device__ __forceinline__ fx_reference_word fx_word(const fx_reference_word* __restrict__ src,
                                                     long long n_src,
                                                     const fx_reference_word* __restrict__ rest,
                                                     long long i) {
  return i < n_src ? src[i] : rest[i - n_src];
}
__device__ __forceinline__ void fx_copy(const fx_reference_word* __restrict__ src, long long n_src,
                                        const fx_reference_word* __restrict__ rest,
                                        fx_reference_word* __restrict__ dst, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    dst[i] = fx_word(src, n_src, rest, i);
  }
}
__device__ __forceinline__ void fx_copy4(const fx_reference_word* __restrict__ src, long long n_src,
                                         const fx_reference_word* __restrict__ rest,
                                         fx_reference_word* __restrict__ dst, long long n) {
  for (long long c = (long long)blockIdx.x * 1024; c < n; c += (long long)gridDim.x * 1024) {
    fx_reference_word v[4];
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = c + k * 256 + threadIdx.x;
      if (i < n) v[k] = fx_word(src, n_src, rest, i);
    }
    #pragma unroll
    for (int k = 0; k < 4; ++k) {
      const long long i = c + k * 256 + threadIdx.x;
      if (i < n) dst[i] = v[k];
    }
  }
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy(const fx_reference_word* __restrict__ src,
                       fx_reference_word* __restrict__ dst, long long n) {
  fx_copy(src, n, src, dst, n);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy4(const fx_reference_word* __restrict__ src,
                        fx_reference_word* __restrict__ dst, long long n) {
  fx_copy4(src, n, src, dst, n);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy_from(const fx_reference_word* __restrict__ src, long long n_src,
                            const fx_reference_word* __restrict__ rest,
                            fx_reference_word* __restrict__ dst, long long n) {
  fx_copy(src, n_src, rest, dst, n);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy4_from(const fx_reference_word* __restrict__ src, long long n_src,
                             const fx_reference_word* __restrict__ rest,
                             fx_reference_word* __restrict__ dst, long long n) {
  fx_copy4(src, n_src, rest, dst, n);
}
extern "C" __global__ void fxscope_reference_empty() {}
)";

}  // namespace

Result<ReferenceKernels> ReferenceKernels::load(const EngineCompiler& compiler) {
  const std::string where = "the reference copy kernel";
  auto image = compiler.compile(kSource, where);
  if (!image) return image.error();
  auto copy = KernelImage::load(image->cubin, kCopyName, where);
  if (!copy) return copy.error();
  auto copy4 = KernelImage::load(image->cubin, kCopy4Name, where);
  if (!copy4) return copy4.error();
  auto copy_from = KernelImage::load(image->cubin, kCopyFromName, where);
  if (!copy_from) return copy_from.error();
  auto copy4_from = KernelImage::load(image->cubin, kCopy4FromName, where);
  if (!copy4_from) return copy4_from.error();
  auto empty = KernelImage::load(image->cubin, kEmptyName, "the reference empty kernel");
  if (!empty) return empty.error();
  ReferenceKernels k;
  k.copy_ = std::move(*copy);
  k.copy4_ = std::move(*copy4);
  k.copy_from_ = std::move(*copy_from);
  k.copy4_from_ = std::move(*copy4_from);
  k.empty_ = std::move(*empty);
  return k;
}

cudaError_t ReferenceKernels::copy(const void* src, void* dst, long long n16, bool four_words,
                                   cudaStream_t stream) const {
  // A word a thread, or a block a chunk of 1024 words; up to 16 blocks of 256 per SM of an H200:
  // one wave, no tail.
  const long long per_block = four_words ? 1024 : 256;
  const long long grid = std::clamp<long long>((n16 + per_block - 1) / per_block, 1, 132 * 16);
  void* args[] = {&src, &dst, &n16};
  return (four_words ? copy4_ : copy_)->launch(grid, 256, 0, args, stream);
}

cudaError_t ReferenceKernels::copy_from(const void* src, long long n_src16, const void* rest,
                                        void* dst, long long n16, bool four_words,
                                        cudaStream_t stream) const {
  const long long per_block = four_words ? 1024 : 256;
  const long long grid = std::clamp<long long>((n16 + per_block - 1) / per_block, 1, 132 * 16);
  void* args[] = {&src, &n_src16, &rest, &dst, &n16};
  return (four_words ? copy4_from_ : copy_from_)->launch(grid, 256, 0, args, stream);
}

cudaError_t ReferenceKernels::empty(cudaStream_t stream) const {
  return empty_->launch(1, 32, 0, nullptr, stream);
}

}  // namespace fxscope::gpu
