#include "kernels/copy_region.h"

namespace fxscope::gpu {

CopyRegion::~CopyRegion() {
  if (src_) cudaFree(src_);
  if (dst_) cudaFree(dst_);
}

bool CopyRegion::allocate() {
  if (cudaMalloc(&src_, kBytes) != cudaSuccess || cudaMalloc(&dst_, kBytes) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

void CopyRegion::warm_clocks(cudaStream_t stream) const {
  for (int i = 0; i < 24; ++i) cudaMemsetAsync(src_, 0, kBytes, stream);
  cudaStreamSynchronize(stream);
}

std::size_t CopyRegion::next_offset(std::size_t offset, std::size_t half) {
  const std::size_t span = kBytes - half;
  return span > 0 ? (offset + half + 4096) % span / 256 * 256 : 0;
}

}  // namespace fxscope::gpu
