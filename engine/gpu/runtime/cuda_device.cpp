#include "runtime/cuda_device.h"

#include "runtime/cuda_status.h"

namespace fxscope::gpu {

Result<CudaDevice> open_cuda_device() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || count == 0) {
    return make_error(
        "no CUDA device: the NVIDIA driver (libcuda.so.1) or a GPU is missing on this machine (" +
        cuda_text(e) + ")");
  }
  if (e != cudaSuccess) return make_error("cannot query CUDA devices: " + cuda_text(e));
  cudaDeviceProp prop{};
  if (const cudaError_t p = cudaGetDeviceProperties(&prop, 0); p != cudaSuccess) {
    return make_error("cannot read device 0: " + cuda_text(p));
  }
  if (const cudaError_t s = cudaSetDevice(0); s != cudaSuccess) {
    return make_error("cannot use device 0: " + cuda_text(s));
  }
  CudaDevice d;
  d.name = prop.name;
  d.major = prop.major;
  d.minor = prop.minor;
  cudaRuntimeGetVersion(&d.runtime_version);
  cudaDriverGetVersion(&d.driver_version);
  d.sms = prop.multiProcessorCount;
  cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, 0);
  return d;
}

}  // namespace fxscope::gpu
