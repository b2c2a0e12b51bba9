// The reference kernels' source and launches.

#include "reference_kernels.h"

#include <algorithm>

namespace fxscope::gpu {
namespace {

// One 16-byte word a thread, grid-striding past the grid: the pattern of fxscope's vectorised
// pointwise kernels, with nothing to compute.
constexpr const char* kSource = R"(
struct fx_reference_word { unsigned int x, y, z, w; };
extern "C" __global__ void __launch_bounds__(256)
fxscope_reference_copy(const fx_reference_word* __restrict__ src,
                       fx_reference_word* __restrict__ dst, long long n) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    dst[i] = src[i];
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
  // As many threads as words up to 16 blocks of 256 per SM of an H200: one wave, no tail.
  const long long grid = std::clamp<long long>((n16 + 255) / 256, 1, 132 * 16);
  void* args[] = {&src, &dst, &n16};
  return copy_->launch(grid, 256, 0, args, stream);
}

cudaError_t ReferenceKernels::empty(cudaStream_t stream) const {
  return empty_->launch(1, 32, 0, nullptr, stream);
}

}  // namespace fxscope::gpu
