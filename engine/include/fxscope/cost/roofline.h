#pragma once
// The roofline cost model: a kernel takes the longer of moving its bytes and doing its FLOPs,
// plus the launch overhead its own work does not hide; CUDA graphs replace that overhead by a
// small per-node cost. Whole modes add up their kernels.

#include <cstddef>
#include <string>
#include <vector>

#include "fxscope/cost/calibration.h"
#include "fxscope/cost/device_spec.h"

namespace fxscope::cost {

// The op classes a user weighs to judge whether compiling pays.
enum class WorkClass { elementwise, reduction, gemm_conv, other };
std::string_view to_string(WorkClass c);

// Which peak a kernel's FLOPs run at: fp32 on CUDA cores, or a tensor-core precision.
enum class Precision { fp32, tf32, bf16, fp16, fp64 };
std::string_view to_string(Precision p);

// How kernels reach the GPU: one host launch each (eager, Inductor default) or a CUDA graph.
enum class LaunchMode { host, cuda_graph };

// What one kernel does, as the fusion plan counts it.
struct KernelWork {
  std::string name;
  WorkClass work_class = WorkClass::elementwise;
  double bytes = 0;  // read + written
  double flops = 0;
  Precision precision = Precision::fp32;
  // Issue slots of its arithmetic on CUDA cores (ops/alu_cost.h), for work that does not run on
  // tensor cores: a chain of full-precision sin, exp and divisions issues far more instructions
  // than its FLOPs count.
  double alu_slots = 0;
  // Which fitted curve prices it (calibration.h): its class, and within the class its shape
  // class ("fwd/cl/3x3/s1/c>=64", report/kernel_shape.h; empty where none is known).
  KernelClass kernel_class = KernelClass::other;
  std::string shape{};
  double rows = 0;  // output elements: a reduction's rows, a convolution's outputs
};

// The predicted time of one kernel and what bounds it.
struct KernelCost {
  double memory_us = 0;
  double compute_us = 0;
  // Without a calibration: max(memory, compute, floor). With one: the class's latency plus
  // max(memory, compute), each at the class's fitted efficiency.
  double device_us = 0;
  double overhead_us = 0;  // launch cost not hidden by the kernel's own work
  double total_us = 0;     // device + overhead
  bool memory_bound = true;
  bool calibrated = false;  // priced by a fitted curve rather than the fixed efficiencies
};

// One op class's share of a mode's predicted time and bytes.
struct ClassShare {
  WorkClass work_class = WorkClass::elementwise;
  std::size_t kernels = 0;
  double us = 0;
  double bytes = 0;
  double time_share = 0;   // of total_us
  double bytes_share = 0;  // of all bytes
};

// A whole mode: every kernel's cost, totals and op-class shares.
struct ModeCost {
  std::vector<KernelCost> kernels;  // parallel to the input
  double total_us = 0;
  double device_us = 0;
  double overhead_us = 0;
  double bytes = 0;
  double flops = 0;
  std::vector<ClassShare> shares;  // one per WorkClass, in enum order
};

KernelCost predict_kernel(const KernelWork& work, const DeviceSpec& device, LaunchMode mode);
ModeCost predict_mode(const std::vector<KernelWork>& kernels, const DeviceSpec& device,
                      LaunchMode mode);

}  // namespace fxscope::cost
