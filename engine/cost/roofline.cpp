#include "fxscope/cost/roofline.h"

#include <algorithm>
#include <array>

namespace fxscope::cost {
namespace {

double peak_tflops(const DeviceSpec& d, const KernelWork& w) {
  // Only GEMMs and convolutions run on tensor cores; everything else does its (few) FLOPs on
  // CUDA cores. A precision the device lacks falls back to fp32.
  if (w.work_class != WorkClass::gemm_conv) return d.fp32_tflops;
  switch (w.precision) {
    case Precision::tf32:
      return d.tf32_tflops > 0 ? d.tf32_tflops : d.fp32_tflops;
    case Precision::bf16:
    case Precision::fp16:
      return d.bf16_tflops > 0 ? d.bf16_tflops : d.fp32_tflops;
    case Precision::fp64:
      return d.fp32_tflops / 2;
    case Precision::fp32:
      break;
  }
  return d.fp32_tflops;
}

// The datasheet roofline: the longest of bytes at memory_efficiency x peak bandwidth, FLOPs at
// compute_efficiency (GEMM, convolution) or memory_efficiency x peak, issue slots at the issue
// rate, and the kernel floor.
void price_fixed(const KernelWork& work, const DeviceSpec& device, KernelCost& c) {
  const double bandwidth = device.memory_bandwidth_gbs * device.memory_efficiency;  // GB/s
  const double efficiency = work.work_class == WorkClass::gemm_conv ? device.compute_efficiency
                                                                    : device.memory_efficiency;
  const double rate = peak_tflops(device, work) * efficiency;        // TFLOP/s
  c.memory_us = bandwidth > 0 ? work.bytes / (bandwidth * 1e3) : 0;  // bytes / (GB/s) in us
  c.compute_us = rate > 0 ? work.flops / (rate * 1e6) : 0;           // flops / (TFLOP/s) in us
  if (work.work_class != WorkClass::gemm_conv && device.fp32_tflops > 0) {
    // An SM issues one instruction per lane per clock; the fp32 peak counts an FMA as two FLOPs.
    const double slots_per_us = device.fp32_tflops * 1e6 / 2;
    c.compute_us = std::max(c.compute_us, work.alu_slots / slots_per_us);
  }
  c.memory_bound = c.memory_us >= c.compute_us;
  c.device_us = std::max({c.memory_us, c.compute_us, device.kernel_floor_us});
}

// The fitted curve's price of WORK: the class's latency plus the longest (or the sum) of its
// bytes, FLOPs and issue slots, each at the share of the device's peak that the class reaches.
void price_calibrated(const KernelWork& work, const DeviceSpec& device, const ClassCurve& curve,
                      KernelCost& c) {
  const auto at = [](double amount, double peak_per_us, double efficiency) {
    return efficiency > 0 && peak_per_us > 0 ? amount / (peak_per_us * efficiency) : 0.0;
  };
  c.memory_us = at(work.bytes, device.memory_bandwidth_gbs * 1e3, curve.memory_efficiency);
  // The engine's attention kernel computes on CUDA cores: it takes as long in bf16 as in fp32 at
  // the same FLOPs, so its curve is a share of the fp32 peak whatever the precision.
  const double flop_peak =
      work.kernel_class == KernelClass::attention ? device.fp32_tflops : peak_tflops(device, work);
  c.compute_us = at(work.flops, flop_peak * 1e6, curve.compute_efficiency);
  // An SM issues one instruction per lane per clock; the fp32 peak counts an FMA as two FLOPs.
  c.compute_us = std::max(c.compute_us,
                          at(work.alu_slots, device.fp32_tflops * 1e6 / 2, curve.issue_efficiency));
  // Below the saturating rows the device is not full (too few threads walking rows, too few
  // output tiles for the SMs): every rate falls with the rows.
  if (curve.saturating_rows > 0 && work.rows > 0) {
    const double under = std::max(1.0, curve.saturating_rows / work.rows);
    c.memory_us *= under;
    c.compute_us *= under;
  }
  // A curve's memory efficiency may pass 1 (its kernels' bytes stayed in L2); the bytes that
  // cannot fit L2 still come from HBM at no more than a streaming kernel's share of its peak (a
  // skinny GEMM reads its 150 MB weight once).
  const double beyond_l2 = work.bytes - device.l2_mb * 1e6;
  if (beyond_l2 > 0) {
    c.memory_us = std::max(
        c.memory_us, at(beyond_l2, device.memory_bandwidth_gbs * 1e3, device.memory_efficiency));
  }
  c.memory_bound = c.memory_us >= c.compute_us;
  c.device_us = curve.latency_us +
                (curve.additive ? c.memory_us + c.compute_us : std::max(c.memory_us, c.compute_us));
  c.calibrated = true;
}

}  // namespace

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
    case Precision::fp16:
      return "fp16";
    case Precision::fp64:
      return "fp64";
  }
  return "fp32";
}

std::string_view to_string(WorkClass c) {
  switch (c) {
    case WorkClass::elementwise:
      return "elementwise";
    case WorkClass::reduction:
      return "reduction";
    case WorkClass::gemm_conv:
      return "gemm_conv";
    case WorkClass::other:
      return "other";
  }
  return "other";
}

KernelCost predict_kernel(const KernelWork& work, const DeviceSpec& device, LaunchMode mode) {
  KernelCost c;
  if (work.kernel_class == KernelClass::host) return c;  // the CPU computes it: no launch
  const ClassCurve* curve =
      device.calibrated
          ? builtin_calibration().find(work.kernel_class, to_string(work.precision), work.shape)
          : nullptr;
  if (curve) {
    price_calibrated(work, device, *curve, c);
  } else {
    price_fixed(work, device, c);
  }
  if (mode == LaunchMode::cuda_graph) {
    c.overhead_us = device.graph_launch_overhead_us;
  } else {
    // Launches are asynchronous: the host's cost shows only where the kernel is shorter.
    c.overhead_us = std::max(0.0, device.launch_overhead_us - c.device_us);
  }
  c.total_us = c.device_us + c.overhead_us;
  return c;
}

ModeCost predict_mode(const std::vector<KernelWork>& kernels, const DeviceSpec& device,
                      LaunchMode mode) {
  ModeCost m;
  std::array<ClassShare, 4> shares{};
  for (std::size_t i = 0; i < shares.size(); ++i) shares[i].work_class = static_cast<WorkClass>(i);
  for (const auto& k : kernels) {
    const KernelCost c = predict_kernel(k, device, mode);
    m.kernels.push_back(c);
    m.total_us += c.total_us;
    m.device_us += c.device_us;
    m.overhead_us += c.overhead_us;
    m.bytes += k.bytes;
    m.flops += k.flops;
    auto& share = shares[static_cast<std::size_t>(k.work_class)];
    ++share.kernels;
    share.us += c.total_us;
    share.bytes += k.bytes;
  }
  if (mode == LaunchMode::cuda_graph && !kernels.empty()) {
    // One host launch of the whole graph.
    m.overhead_us += device.launch_overhead_us;
    m.total_us += device.launch_overhead_us;
  }
  for (auto& s : shares) {
    s.time_share = m.total_us > 0 ? s.us / m.total_us : 0;
    s.bytes_share = m.bytes > 0 ? s.bytes / m.bytes : 0;
  }
  m.shares.assign(shares.begin(), shares.end());
  return m;
}

}  // namespace fxscope::cost
