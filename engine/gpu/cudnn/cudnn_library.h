#pragma once
// cuDNN 9 found at run time with dlopen (on a PyTorch machine it sits inside the wheel, not under
// the CUDA toolkit): the entry points fxscope calls, bound once per process, and one cuDNN handle.
// The binaries never link libcudnn, so they start on machines without it.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cudnn/cudnn_api.h"
#include "fxscope/core/result.h"

namespace fxscope::gpu {

struct CudnnLibrary {
  using Status = cudnn::Status;
  using Desc = cudnn::Descriptor;

  // The backend (graph) API.
  Status (*backend_create)(int, Desc*) = nullptr;
  Status (*backend_destroy)(Desc) = nullptr;
  Status (*backend_set)(Desc, int, int, std::int64_t, const void*) = nullptr;
  Status (*backend_get)(Desc, int, int, std::int64_t, std::int64_t*, void*) = nullptr;
  Status (*backend_finalize)(Desc) = nullptr;
  Status (*backend_execute)(void*, Desc, Desc) = nullptr;

  // The legacy API: convolutions where the graph API plans none, and a bias it cannot fuse.
  Status (*create_tensor)(void**) = nullptr;
  Status (*set_tensor_nd)(void*, int, int, const int*, const int*) = nullptr;
  Status (*destroy_tensor)(void*) = nullptr;
  Status (*create_filter)(void**) = nullptr;
  Status (*set_filter_nd)(void*, int, int, int, const int*) = nullptr;
  Status (*destroy_filter)(void*) = nullptr;
  Status (*create_conv)(void**) = nullptr;
  Status (*set_conv_nd)(void*, int, const int*, const int*, const int*, int, int) = nullptr;
  Status (*set_group_count)(void*, int) = nullptr;
  Status (*set_math_type)(void*, int) = nullptr;
  Status (*destroy_conv)(void*) = nullptr;
  Status (*get_algo_v7)(void*, void*, void*, void*, void*, int, int*, void*) = nullptr;
  Status (*workspace_size)(void*, void*, void*, void*, void*, int, std::size_t*) = nullptr;
  Status (*forward)(void*, const void*, void*, const void*, void*, const void*, void*, int, void*,
                    std::size_t, const void*, void*, void*) = nullptr;
  Status (*add_tensor)(void*, const void*, void*, const void*, const void*, void*, void*) = nullptr;
  // A convolution's backward (aten.convolution_backward): its input's, weight's and bias's
  // gradients.
  Status (*get_bwd_data_algo_v7)(void*, void*, void*, void*, void*, int, int*, void*) = nullptr;
  Status (*bwd_data_workspace_size)(void*, void*, void*, void*, void*, int, std::size_t*) = nullptr;
  Status (*backward_data)(void*, const void*, void*, const void*, void*, const void*, void*, int,
                          void*, std::size_t, const void*, void*, void*) = nullptr;
  Status (*get_bwd_filter_algo_v7)(void*, void*, void*, void*, void*, int, int*, void*) = nullptr;
  Status (*bwd_filter_workspace_size)(void*, void*, void*, void*, void*, int,
                                      std::size_t*) = nullptr;
  Status (*backward_filter)(void*, const void*, void*, const void*, void*, const void*, void*, int,
                            void*, std::size_t, const void*, void*, void*) = nullptr;
  Status (*backward_bias)(void*, const void*, void*, const void*, const void*, void*,
                          void*) = nullptr;

  Status (*set_stream)(void*, cudaStream_t) = nullptr;
  const char* (*error_string)(Status) = nullptr;
  std::size_t (*version)() = nullptr;
  void* handle = nullptr;  // the cudnnHandle_t every convolution uses
  std::string path;

  std::string text(Status s) const;
  // cudnnSetStream costs a call into cuDNN; the executor launches every step on one stream.
  void use_stream(cudaStream_t stream) const;

 private:
  mutable cudaStream_t stream_ = nullptr;
  mutable bool stream_set_ = false;
};

// cudnnDataType_t of an fxscope dtype ("f32", "f16", "bf16"); -1 for the others.
int cudnn_data_type(const std::string& dtype);

// The process's cuDNN, loaded on first use; the error says where it was looked for.
Result<const CudnnLibrary*> cudnn_library();

}  // namespace fxscope::gpu
