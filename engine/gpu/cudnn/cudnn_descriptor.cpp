#include "cudnn/cudnn_descriptor.h"

#include <utility>

namespace fxscope::gpu {

CudnnDescriptor::CudnnDescriptor(const CudnnLibrary& lib, int type) : lib_(&lib) {
  status_ = lib.backend_create(type, &desc_);
  if (status_ != cudnn::CUDNN_STATUS_SUCCESS) desc_ = nullptr;
}

CudnnDescriptor::~CudnnDescriptor() {
  if (desc_) lib_->backend_destroy(desc_);
}

CudnnDescriptor::CudnnDescriptor(CudnnDescriptor&& other) noexcept
    : lib_(other.lib_), desc_(std::exchange(other.desc_, nullptr)), status_(other.status_) {}

CudnnDescriptor& CudnnDescriptor::operator=(CudnnDescriptor&& other) noexcept {
  if (this != &other) {
    if (desc_) lib_->backend_destroy(desc_);
    lib_ = other.lib_;
    desc_ = std::exchange(other.desc_, nullptr);
    status_ = other.status_;
  }
  return *this;
}

cudnn::Status CudnnDescriptor::set(int attribute, int type, std::int64_t count,
                                   const void* values) {
  if (!desc_) return missing();
  return lib_->backend_set(desc_, attribute, type, count, values);
}

cudnn::Status CudnnDescriptor::set_int(int attribute, int type, int value) {
  return set(attribute, type, 1, &value);
}

cudnn::Status CudnnDescriptor::set_int64(int attribute, std::int64_t value) {
  return set(attribute, cudnn::CUDNN_TYPE_INT64, 1, &value);
}

cudnn::Status CudnnDescriptor::set_int64s(int attribute, const std::vector<std::int64_t>& values) {
  return set(attribute, cudnn::CUDNN_TYPE_INT64, static_cast<std::int64_t>(values.size()),
             values.data());
}

cudnn::Status CudnnDescriptor::set_descriptor(int attribute, const CudnnDescriptor& value) {
  const cudnn::Descriptor d = value.get();
  return set(attribute, cudnn::CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
}

cudnn::Status CudnnDescriptor::finalize() {
  if (!desc_) return missing();
  return lib_->backend_finalize(desc_);
}

}  // namespace fxscope::gpu
