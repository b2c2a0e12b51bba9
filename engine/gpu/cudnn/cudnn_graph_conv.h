#pragma once
// A convolution through cuDNN's backend (graph) API: the operation graph (CONVOLUTION_FORWARD, and
// the bias as a fused pointwise add where an engine takes it), an engine config from cuDNN's
// heuristics and an execution plan finalized once at creation; a call only executes the plan.
// On the H200 that is about 6 us of host time per call where cudnnConvolutionForward takes 30 to
// 200 us (ResNet-50's convolutions, bench_cudnn_conv).

#include <cuda_runtime_api.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudnn/cudnn_bias_add.h"
#include "cudnn/cudnn_descriptor.h"
#include "cudnn/cudnn_library.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

// Which of a convolution's operations the graph computes. The tensors keep the forward's roles:
// the input's place holds dx for backward data, the weight's dw for backward filter, the output's
// dy for both (launch's X, W and OUT).
enum class ConvOp { forward, backward_data, backward_filter };

class CudnnGraphConv {
 public:
  CudnnGraphConv(const CudnnGraphConv&) = delete;
  CudnnGraphConv& operator=(const CudnnGraphConv&) = delete;

  // SPEC has two or three spatial dims (with_two_spatial_dims). The error names what cuDNN
  // refused (no "where": the caller adds it).
  static Result<std::unique_ptr<CudnnGraphConv>> create(const CudnnLibrary& lib,
                                                        const ConvSpec& spec,
                                                        ConvOp op = ConvOp::forward);
  std::size_t workspace_bytes() const { return workspace_bytes_; }
  // "graph engine 27 (heuristics instant, bias fused)", for the report.
  const std::string& engine() const { return engine_; }
  // On the stream the library's handle was last given (CudnnLibrary::use_stream). The variant
  // pack is built on the first call and again only when a pointer differs from the last call's.
  // "" on success, else what failed.
  std::string launch(const void* x, const void* w, const void* bias, void* out,
                     void* workspace) const;
  // max-autotune: times up to CANDIDATES plans of the heuristics' ranking on these buffers (OUT is
  // written) and keeps the fastest. What it picked, or nullopt when there was nothing to choose.
  std::optional<std::string> tune(cudaStream_t stream, const void* x, const void* w,
                                  const void* bias, void* out, std::size_t candidates);

 private:
  CudnnGraphConv() = default;
  // UNFUSED: why the fused form failed, kept for engine().
  static Result<std::unique_ptr<CudnnGraphConv>> create_with(const CudnnLibrary& lib,
                                                             const ConvSpec& spec, ConvOp op,
                                                             bool fuse_bias,
                                                             const std::string& unfused);
  std::string build_pack(const std::array<const void*, 5>& pointers) const;

  const CudnnLibrary* lib_ = nullptr;
  std::vector<CudnnDescriptor> parts_;  // tensors, operations and graph the plan was made from
  CudnnDescriptor plan_;
  std::unique_ptr<CudnnBiasAdd> bias_add_;  // a bias no engine fused
  bool bias_fused_ = false;
  bool fp32_ = false;
  std::string bias_note_;       // how the bias is added, appended to engine()
  std::array<int, 4> align_{};  // x, w, bias, out
  std::size_t workspace_bytes_ = 0;
  std::string engine_;
  mutable CudnnDescriptor pack_;
  mutable std::array<const void*, 5> pack_pointers_{};  // x, w, bias, out, workspace
};

}  // namespace fxscope::gpu
