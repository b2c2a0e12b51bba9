#pragma once
// One kernel that Inductor generated and defined in the output code
// (`name = async_compile.triton('name', '''...''')`, or another async_compile kind).

#include <cstddef>
#include <string>
#include <string_view>

#include "fxscope/inductor/source_comments.h"
#include "fxscope/inductor/triton_meta.h"

namespace fxscope::inductor {

// What a kernel does, from its name prefix (or, failing that, its Triton decorator).
enum class KernelKind {
  pointwise,             // triton_poi
  reduction,             // triton_red: loops over the reduced dimension
  persistent_reduction,  // triton_per: the reduced dimension fits one block
  template_gemm,         // triton_tem or a template kernel: a GEMM/conv with fused epilogue
  other,                 // foreach/combo kernels, C++ kernels, user Triton kernels, ...
};

// "pointwise", "reduction", "persistent_reduction", "template", "other".
std::string_view to_string(KernelKind kind);

// The kind of the kernel named NAME whose Triton decorator is HEURISTIC (may be empty).
KernelKind kernel_kind(std::string_view name, std::string_view heuristic);

// A kernel definition with the comments Inductor wrote right before it.
struct Kernel {
  std::string name;
  KernelKind kind = KernelKind::other;
  std::string compile_kind;     // the async_compile method: "triton", "cpp_pybinding", "cuda", ...
  std::size_t line = 0;         // line of `name = async_compile....(` in the output code
  SourceComments comments;      // source nodes, ATen ops, node mapping, graph fragment
  std::string source;           // the body of its ''' string (Triton or C++ source)
  std::size_t source_line = 0;  // line of its opening '''; 0 without a source string
  TritonMeta meta;              // empty unless compile_kind is "triton"
};

}  // namespace fxscope::inductor
