#include "fxscope/inductor/kernel.h"

#include "fxscope/core/text.h"

namespace fxscope::inductor {

std::string_view to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::pointwise:
      return "pointwise";
    case KernelKind::reduction:
      return "reduction";
    case KernelKind::persistent_reduction:
      return "persistent_reduction";
    case KernelKind::template_gemm:
      return "template";
    case KernelKind::other:
      break;
  }
  return "other";
}

KernelKind kernel_kind(std::string_view name, std::string_view heuristic) {
  // The name prefix is what Inductor's own tools (and profiler traces) go by; the decorator
  // covers kernels named otherwise, such as user Triton kernels wrapped by Inductor.
  if (text::starts_with(name, "triton_poi")) return KernelKind::pointwise;
  if (text::starts_with(name, "triton_red")) return KernelKind::reduction;
  if (text::starts_with(name, "triton_per")) return KernelKind::persistent_reduction;
  if (text::starts_with(name, "triton_tem")) return KernelKind::template_gemm;
  if (name.find("template") != std::string_view::npos) return KernelKind::template_gemm;
  if (heuristic == "pointwise") return KernelKind::pointwise;
  if (heuristic == "reduction") return KernelKind::reduction;
  if (heuristic == "persistent_reduction") return KernelKind::persistent_reduction;
  if (heuristic == "template") return KernelKind::template_gemm;
  return KernelKind::other;
}

}  // namespace fxscope::inductor
