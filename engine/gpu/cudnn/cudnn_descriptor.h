#pragma once
// One descriptor of cuDNN's backend (graph) API, owned: created with its type, attributes set,
// finalized, destroyed with the owner.

#include <cstdint>
#include <vector>

#include "cudnn/cudnn_library.h"

namespace fxscope::gpu {

class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  // get() is null when cuDNN could not create it; status() says why.
  CudnnDescriptor(const CudnnLibrary& lib, int type);
  ~CudnnDescriptor();
  CudnnDescriptor(CudnnDescriptor&& other) noexcept;
  CudnnDescriptor& operator=(CudnnDescriptor&& other) noexcept;
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;

  cudnn::Descriptor get() const { return desc_; }
  cudnn::Status status() const { return status_; }

  cudnn::Status set(int attribute, int type, std::int64_t count, const void* values);
  cudnn::Status set_int(int attribute, int type, int value);  // enum-typed attributes
  cudnn::Status set_int64(int attribute, std::int64_t value);
  cudnn::Status set_int64s(int attribute, const std::vector<std::int64_t>& values);
  cudnn::Status set_descriptor(int attribute, const CudnnDescriptor& value);
  cudnn::Status finalize();

 private:
  // What a call on a descriptor that was never created reports.
  cudnn::Status missing() const {
    return status_ != cudnn::CUDNN_STATUS_SUCCESS ? status_ : cudnn::CUDNN_STATUS_NOT_INITIALIZED;
  }

  const CudnnLibrary* lib_ = nullptr;
  cudnn::Descriptor desc_ = nullptr;
  cudnn::Status status_ = cudnn::CUDNN_STATUS_SUCCESS;
};

}  // namespace fxscope::gpu
