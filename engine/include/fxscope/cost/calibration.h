#pragma once
// Efficiency curves of the cost model, fitted to kernels measured on a GPU: per kernel class
// (and precision, where the class runs on tensor cores), a fixed latency and the shares of the
// device's peak bandwidth, FLOP rate and issue rate that the class reaches. The fit is data
// (engine/cost/data/*.json, compiled in); tools/cost_fit/fit_cost_model.py writes it from
// measured kernels. The shares apply to any device's published peaks (device_spec.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::cost {

// What a kernel is, as far as its speed goes: a finer split than WorkClass, which groups ops for
// the user's time shares.
enum class KernelClass {
  pointwise,             // a generated elementwise kernel or an eager pointwise op
  reduction,             // a looped reduction (Inductor's triton_red, an eager sum)
  persistent_reduction,  // a reduction whose rows fit one block (triton_per)
  gemm,                  // cuBLAS or a GEMM template (with its epilogue)
  conv,                  // cuDNN
  grouped_conv,          // a grouped or depthwise convolution: far below the dense rate
  attention,             // fused scaled dot-product attention
  copy,                  // a layout copy, concatenation, gather: moves bytes, computes nothing
  // A pointwise kernel or copy that reads and writes its elements in different memory orders
  // (channels-last to contiguous): one side's accesses do not coalesce.
  transpose,
  other,  // anything else (seeds, library calls the model cannot see into)
  host,   // scalars the host computes (a symbolic size, an assert of one): no kernel, no cost
};
std::string_view to_string(KernelClass c);
std::optional<KernelClass> parse_kernel_class(std::string_view name);

// The fitted curve of one class: time = latency_us + the longest (or, where `additive`, the sum)
// of bytes at memory_efficiency x peak bandwidth, FLOPs at compute_efficiency x the precision's
// peak, and issue slots at issue_efficiency x the issue rate. A library kernel that moves and
// computes in turn (a small convolution) adds them; a streaming kernel overlaps them. A kernel
// that fills the device only with saturating_rows rows (output elements) reaches its rates only
// then: with fewer, its bytes, FLOPs and slots take saturating_rows / rows as long. A reduction's
// one-thread-a-row launch keeps only as many loads in flight as it has threads (Little's law); an
// fp32 convolution over few outputs fills few thread blocks, each walking its whole reduction
// (input channels x window) in turn.
struct ClassCurve {
  KernelClass kernel_class = KernelClass::other;
  std::string precision;  // "fp32", "bf16" ...; "any" where the fit does not split by it
  // A prefix of the kernels' shape class ("fwd/cl"); empty for the whole class.
  std::string shape;
  double latency_us = 0;
  double memory_efficiency = 0;
  double compute_efficiency = 0;
  double issue_efficiency = 0;
  double saturating_rows = 0;  // 0: the rates do not follow the rows
  bool additive = false;
  std::size_t samples = 0;  // measured kernels the curve was fitted to
};

struct Calibration {
  std::string measured_on;  // the GPU the kernels ran on ("NVIDIA H100 80GB HBM3")
  std::string device_spec;  // the known device whose peaks the fit divides by ("H100")
  std::string source;       // the data and program the fit came from
  std::vector<ClassCurve> curves;

  // The curve for CLASS whose shape is the longest prefix (whole components) of SHAPE, among
  // those fitted to PRECISION or to "any" (PRECISION's where both are as long); else null.
  const ClassCurve* find(KernelClass kernel_class, std::string_view precision,
                         std::string_view shape = {}) const;
};

// Reads a calibration JSON; a missing field or an unknown class is an Error naming NAME.
Result<Calibration> parse_calibration(std::string_view json_text, const std::string& name);

// The calibration compiled into fxscope (engine/cost/data/calibration_h100.json).
const Calibration& builtin_calibration();

}  // namespace fxscope::cost
