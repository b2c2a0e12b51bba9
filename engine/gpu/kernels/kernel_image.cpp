#include "kernels/kernel_image.h"

#include "runtime/cuda_status.h"

namespace fxscope::gpu {

KernelImage::~KernelImage() {
  if (library_) cudaLibraryUnload(library_);
}

Result<std::unique_ptr<KernelImage>> KernelImage::load(const std::string& image,
                                                       const std::string& entry,
                                                       const std::string& where) {
  std::unique_ptr<KernelImage> k(new KernelImage());
  if (const cudaError_t e =
          cudaLibraryLoadData(&k->library_, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
      e != cudaSuccess) {
    return make_error(where + ": cannot load the compiled kernel: " + cuda_text(e));
  }
  if (const cudaError_t e = cudaLibraryGetKernel(&k->kernel_, k->library_, entry.c_str());
      e != cudaSuccess) {
    return make_error(where + ": kernel " + entry + " is not in its image: " + cuda_text(e));
  }
  return k;
}

cudaError_t KernelImage::launch(long long grid, int block, std::size_t shared_bytes, void** args,
                                cudaStream_t stream) const {
  if (shared_bytes > 48 * 1024) {
    cudaKernelSetAttributeForDevice(kernel_, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared_bytes), 0);
  }
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(static_cast<unsigned>(grid)),
                          dim3(static_cast<unsigned>(block)), args, shared_bytes, stream);
}

}  // namespace fxscope::gpu
