#include "cudnn/cudnn_bias_add.h"

#include <vector>

namespace fxscope::gpu {

CudnnBiasAdd::~CudnnBiasAdd() {
  if (b_desc_) lib_->destroy_tensor(b_desc_);
  if (y_desc_) lib_->destroy_tensor(y_desc_);
}

Result<std::unique_ptr<CudnnBiasAdd>> CudnnBiasAdd::create(const CudnnLibrary& lib,
                                                           const ConvSpec& s,
                                                           const std::string& where) {
  std::unique_ptr<CudnnBiasAdd> b(new CudnnBiasAdd());
  b->lib_ = &lib;
  const int type = cudnn_data_type(s.dtype);
  const int rank = static_cast<int>(s.out_sizes.size());
  std::vector<int> ydims(s.out_sizes.begin(), s.out_sizes.end());
  std::vector<int> ystrides(s.out_strides.begin(), s.out_strides.end());
  std::vector<int> bdims(static_cast<std::size_t>(rank), 1);
  std::vector<int> bstrides(static_cast<std::size_t>(rank), 1);
  bdims[1] = ydims[1];
  bstrides[0] = bdims[1];
  if (lib.create_tensor(&b->b_desc_) != cudnn::CUDNN_STATUS_SUCCESS ||
      lib.create_tensor(&b->y_desc_) != cudnn::CUDNN_STATUS_SUCCESS) {
    return make_error(where + ": cuDNN cannot create a tensor descriptor for the bias");
  }
  if (const auto st = lib.set_tensor_nd(b->b_desc_, type, rank, bdims.data(), bstrides.data());
      st != cudnn::CUDNN_STATUS_SUCCESS) {
    return make_error(where + ": cuDNN bias descriptor: " + lib.text(st));
  }
  if (const auto st = lib.set_tensor_nd(b->y_desc_, type, rank, ydims.data(), ystrides.data());
      st != cudnn::CUDNN_STATUS_SUCCESS) {
    return make_error(where + ": cuDNN output descriptor: " + lib.text(st));
  }
  return b;
}

cudnn::Status CudnnBiasAdd::launch(const void* bias, void* out) const {
  const float one = 1.0f;
  return lib_->add_tensor(lib_->handle, &one, b_desc_, bias, &one, y_desc_, out);
}

}  // namespace fxscope::gpu
