#pragma once
// What the cost model knows of a GPU: data, not code, so a user can add or override a device.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::cost {

// Peak rates and overheads of one GPU. Rates are the vendor's dense figures; the model applies
// efficiency factors (below) because no kernel reaches a datasheet peak.
struct DeviceSpec {
  std::string name;                 // "H200"
  double memory_bandwidth_gbs = 0;  // HBM, GB/s
  double fp32_tflops = 0;           // CUDA cores, no tensor cores
  double tf32_tflops = 0;           // tensor cores, dense (0: none)
  double bf16_tflops = 0;           // tensor cores, dense (fp16 alike)
  int sm_count = 0;
  double l2_mb = 0;
  double launch_overhead_us = 5.0;        // host-side cost of one eager / Inductor kernel launch
  double graph_launch_overhead_us = 0.6;  // per kernel node when replayed from a CUDA graph
  double kernel_floor_us = 2.0;           // the shortest a kernel runs on the device, however small
  double memory_efficiency = 0.85;        // share of peak bandwidth a streaming kernel reaches
  double compute_efficiency = 0.70;       // share of peak FLOP/s a large GEMM/conv reaches
  // Price kernels by the fitted curves of builtin_calibration() (calibration.h), which replace
  // memory_efficiency, compute_efficiency and kernel_floor_us for the classes they cover.
  bool calibrated = true;
  std::string source;  // where the figures come from
};

// H200, H100, A100, V100, L4 and RTX 4090 as shipped; `name` matches case-insensitively.
const std::vector<DeviceSpec>& known_devices();
std::optional<DeviceSpec> find_device(std::string_view name);

// Applies "bw=4000,fp32=60,tf32=400,bf16=900,launch=4,graph_launch=0.5,mem_eff=0.9,
// compute_eff=0.6,calibrated=0" to SPEC; an unknown key or a bad number is an Error naming it.
Result<DeviceSpec> apply_overrides(DeviceSpec spec, std::string_view overrides);

}  // namespace fxscope::cost
