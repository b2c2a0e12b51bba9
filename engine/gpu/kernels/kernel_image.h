#pragma once
// A compiled kernel loaded into the current context through the runtime's library API
// (cudaLibraryLoadData), so no driver symbol is linked: the static runtime finds libcuda.so.1.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "fxscope/core/result.h"

namespace fxscope::gpu {

class KernelImage {
 public:
  ~KernelImage();
  KernelImage(const KernelImage&) = delete;
  KernelImage& operator=(const KernelImage&) = delete;

  // IMAGE is a cubin or PTX; ENTRY the extern "C" kernel's name; WHERE names the group.
  static Result<std::unique_ptr<KernelImage>> load(const std::string& image,
                                                   const std::string& entry,
                                                   const std::string& where);

  // Launches with ARGS (pointers to each argument) on a 1-D grid.
  cudaError_t launch(long long grid, int block, std::size_t shared_bytes, void** args,
                     cudaStream_t stream) const;

 private:
  KernelImage() = default;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

}  // namespace fxscope::gpu
