#pragma once
// A convolution's backward (aten.convolution_backward): the input's gradient and the weight's
// each through cuDNN's graph API (an operation graph of backward data or backward filter, as ATen
// calls cuDNN through its v8 frontend), else the legacy API (cudnnConvolutionBackwardData /
// BackwardFilter) where no engine plans the graph; the bias's through cudnnConvolutionBackwardBias.
// Each only where the graph takes it. The engines and algorithms are cuDNN's heuristic picks,
// without TF32, as the forward's.

#include <memory>
#include <string>

#include "cudnn/cudnn_graph_conv.h"
#include "cudnn/cudnn_library.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

class CudnnConvBackward {
 public:
  ~CudnnConvBackward();
  CudnnConvBackward(const CudnnConvBackward&) = delete;
  CudnnConvBackward& operator=(const CudnnConvBackward&) = delete;

  // SPEC has two or three spatial dims.
  static Result<std::unique_ptr<CudnnConvBackward>> create(const ConvBackwardSpec& spec,
                                                           const std::string& where);
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // "data graph engine 27 (...), filter algorithm 0": what cuDNN's heuristics picked.
  const std::string& algorithms() const { return algorithms_; }
  // "" or why it failed. DX, DW, DB may be null where the graph takes no such gradient.
  std::string launch(cudaStream_t stream, const void* dy, const void* x, const void* w, void* dx,
                     void* dw, void* db, void* workspace) const;

 private:
  CudnnConvBackward() = default;
  const CudnnLibrary* lib_ = nullptr;
  std::string where_;
  std::unique_ptr<CudnnGraphConv> data_graph_;    // dx on the graph API, else legacy
  std::unique_ptr<CudnnGraphConv> filter_graph_;  // dw on the graph API, else legacy
  void* x_desc_ = nullptr;                        // the forward's input
  void* dx_desc_ = nullptr;                       // its gradient (its own strides)
  void* dy_desc_ = nullptr;
  void* db_desc_ = nullptr;
  void* w_desc_ = nullptr;
  void* dw_desc_ = nullptr;
  void* conv_desc_ = nullptr;
  int data_algo_ = -1;
  int filter_algo_ = -1;
  bool bias_ = false;
  std::size_t workspace_bytes_ = 0;
  std::string algorithms_;
};

}  // namespace fxscope::gpu
