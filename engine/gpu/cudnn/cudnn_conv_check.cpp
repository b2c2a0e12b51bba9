#include "fxscope/gpu/cudnn_conv_check.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "cudnn/cudnn_conv.h"
#include "run/gpu_timing.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_status.h"
#include "runtime/device_buffers.h"

namespace fxscope::gpu {
namespace {

constexpr int kBatches = 7;

struct Timing {
  double host_us = 0;
  double device_us = 0;
};

Timing time_launches(cudaStream_t stream, int calls, const std::function<void()>& launch) {
  cudaEvent_t t0 = nullptr;
  cudaEvent_t t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  std::vector<double> host;
  std::vector<double> device;
  for (int b = 0; b < kBatches; ++b) {
    cudaStreamSynchronize(stream);
    cudaEventRecord(t0, stream);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) launch();
    const auto stop = std::chrono::steady_clock::now();
    cudaEventRecord(t1, stream);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    host.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / calls);
    device.push_back(1000.0 * static_cast<double>(ms) / calls);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  return {median(host), median(device)};
}

}  // namespace

std::size_t strided_elements(const std::vector<std::int64_t>& sizes,
                             const std::vector<std::int64_t>& strides) {
  std::int64_t last = 0;
  for (std::size_t d = 0; d < sizes.size() && d < strides.size(); ++d) {
    if (sizes[d] == 0) return 0;
    last += (sizes[d] - 1) * strides[d];
  }
  return static_cast<std::size_t>(last + 1);
}

Result<CudnnConvCheck> check_cudnn_conv(const ConvSpec& spec, const ConvData& data, int calls,
                                        bool tune) {
  const std::string where = "convolution check";
  if (spec.dtype != "f32") return make_error(where + ": f32 data only, not " + spec.dtype);
  const std::size_t nx = strided_elements(spec.x_sizes, spec.x_strides);
  const std::size_t nw = strided_elements(spec.w_sizes, spec.w_strides);
  const std::size_t ny = strided_elements(spec.out_sizes, spec.out_strides);
  const std::size_t nb = spec.bias ? static_cast<std::size_t>(spec.out_sizes[1]) : 0;
  if (data.x.size() != nx || data.w.size() != nw || data.bias.size() != nb) {
    return make_error(where + ": the data does not match the spec's input, weight and bias");
  }
  if (auto dev = open_cuda_device(); !dev) return dev.error();
  auto conv = CudnnConv::create(spec, where);
  if (!conv) return conv.error();
  auto lib = cudnn_library();
  if (!lib) return lib.error();
  auto legacy = CudnnLegacyConv::create(**lib, with_two_spatial_dims(spec), where + " (legacy)");
  if (!legacy) return legacy.error();

  DeviceBuffers mem;
  auto x = mem.upload(data.x, nx);
  auto w = mem.upload(data.w, nw);
  auto b = mem.upload(data.bias, nb);
  auto y = mem.upload({}, ny);
  auto y_legacy = mem.upload({}, ny);
  for (const auto* r : {&x, &w, &b, &y, &y_legacy}) {
    if (!*r) return make_error(where + ": " + r->error().message);
  }
  const void* bias = spec.bias ? *b : nullptr;
  cudaStream_t stream = nullptr;
  if (const cudaError_t e = cudaStreamCreate(&stream); e != cudaSuccess) {
    return make_error(where + ": cudaStreamCreate: " + cuda_text(e));
  }
  CudnnConvCheck c;
  // Tuned before the workspace is sized, as the executor does.
  if (tune) c.tuned = (*conv)->tune(stream, *x, *w, bias, *y).value_or("");
  const std::size_t ws_bytes = std::max((*conv)->workspace_bytes(), (*legacy)->workspace_bytes());
  auto ws = mem.upload({}, (ws_bytes + sizeof(float) - 1) / sizeof(float));
  if (!ws) {
    cudaStreamDestroy(stream);
    return make_error(where + ": " + ws.error().message);
  }
  std::string err;
  const auto run = [&] {
    if (const std::string e = (*conv)->launch(stream, *x, *w, bias, *y, *ws); err.empty()) err = e;
  };
  const auto run_legacy = [&] {
    (*lib)->use_stream(stream);
    if (const cudnn::Status s = (*legacy)->launch(*x, *w, bias, *y_legacy, *ws);
        s != cudnn::CUDNN_STATUS_SUCCESS && err.empty()) {
      err = where + " (legacy): " + (*lib)->text(s);
    }
  };
  c.engine = (*conv)->engine();
  c.workspace_bytes = (*conv)->workspace_bytes();
  run();
  run_legacy();
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess && err.empty()) {
    err = where + ": " + cuda_text(e);
  }
  if (err.empty()) {
    const Timing t = time_launches(stream, calls, run);
    const Timing lt = time_launches(stream, calls, run_legacy);
    c.host_us = t.host_us;
    c.device_us = t.device_us;
    c.legacy_host_us = lt.host_us;
    c.legacy_device_us = lt.device_us;
    c.out.resize(ny);
    c.legacy_out.resize(ny);
    cudaMemcpy(c.out.data(), *y, ny * sizeof(float), cudaMemcpyDeviceToHost);
    if (const cudaError_t e =
            cudaMemcpy(c.legacy_out.data(), *y_legacy, ny * sizeof(float), cudaMemcpyDeviceToHost);
        e != cudaSuccess && err.empty()) {
      err = where + ": download: " + cuda_text(e);
    }
  }
  // The library's handle keeps the last stream it was given: hand it a stream that stays.
  (*lib)->use_stream(nullptr);
  cudaStreamDestroy(stream);
  if (!err.empty()) return make_error(err);
  return c;
}

}  // namespace fxscope::gpu
