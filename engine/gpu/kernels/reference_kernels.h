#pragma once
// Two kernels compiled like the generated ones (NVRTC, the run's device), to measure what any
// kernel pays: an empty kernel (the fixed cost of a launch as CUPTI times it) and a plain 16-byte
// copy in two forms (the bandwidth a memory-bound kernel of a given size can reach through the
// same path: the faster form at each size).

#include <memory>
#include <string>

#include "fxscope/gpu/engine_compiler.h"
#include "kernels/kernel_image.h"

namespace fxscope::gpu {

class ReferenceKernels {
 public:
  static Result<ReferenceKernels> load(const EngineCompiler& compiler);

  // Copies N16 16-byte words from SRC to DST (both 16-byte aligned): a word a thread, or
  // FOUR_WORDS a thread.
  cudaError_t copy(const void* src, void* dst, long long n16, bool four_words,
                   cudaStream_t stream) const;
  // The same, reading the first N_SRC16 words from SRC and the rest from REST.
  cudaError_t copy_from(const void* src, long long n_src16, const void* rest, void* dst,
                        long long n16, bool four_words, cudaStream_t stream) const;
  cudaError_t empty(cudaStream_t stream) const;

  static constexpr const char* kCopyName = "fxscope_reference_copy";
  static constexpr const char* kCopy4Name = "fxscope_reference_copy4";
  static constexpr const char* kCopyFromName = "fxscope_reference_copy_from";
  static constexpr const char* kCopy4FromName = "fxscope_reference_copy4_from";
  static constexpr const char* kEmptyName = "fxscope_reference_empty";

 private:
  std::shared_ptr<KernelImage> copy_;
  std::shared_ptr<KernelImage> copy4_;
  std::shared_ptr<KernelImage> copy_from_;
  std::shared_ptr<KernelImage> copy4_from_;
  std::shared_ptr<KernelImage> empty_;
};

}  // namespace fxscope::gpu
