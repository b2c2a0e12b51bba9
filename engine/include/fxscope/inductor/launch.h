#pragma once
// One kernel launch in the output code's call() (or partition_N() under CUDA graphs).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fxscope/inductor/kernel.h"
#include "fxscope/inductor/source_comments.h"

namespace fxscope::inductor {

// Who runs the launch: a kernel defined in this module, or a library/ATen kernel Inductor calls.
enum class LaunchKind {
  kernel,     // `triton_poi_fused_add_0.run(...)` (also templates), or a defined C++ kernel called
  extern_op,  // `extern_kernels.mm(...)`, `torch.ops.aten.X.default(...)`, `aten.X.out(...)`
};

// A named argument of a launch: {"xnumel", "32768"}.
struct LaunchArg {
  std::string name;
  std::string value;  // as written, or the expression a `..._xnumel = 256*s77` line gave it
};

// A launch statement with the comments right before it (source nodes, provenance handles).
struct Launch {
  LaunchKind kind = LaunchKind::kernel;
  std::string callee;  // kernel name ("triton_poi_fused_add_0", without ".run") or as written:
                       // "extern_kernels.mm",
                       // "torch.ops.aten._scaled_dot_product_efficient_attention.default"
  std::string op;      // extern: callee without "extern_kernels."/"torch.ops." ("mm",
                       // "aten._scaled_dot_product_efficient_attention.default"); kernel: name
  std::optional<std::size_t> kernel;  // index into OutputCode::kernels() when defined there
  std::string function;               // enclosing def: "call", "partition_0"
  std::size_t line = 0;
  std::string args;  // the text between the call's parentheses
  // Kernel launches: arguments bound to the kernel's *numel parameters (xnumel, ynumel,
  // r0_numel), and the trailing arguments past its parameters, which are a template's grid.
  std::vector<LaunchArg> numels;
  std::vector<std::string> grid;
  // Kernel launches: the arguments bound to the kernel's out_ptr and in_out_ptr parameters, the
  // buffers it stores into, as the call writes them (`arg3_1`, `buf7`, `reinterpret_tensor(...)`).
  std::vector<std::string> stored;
  // Kernel launches: the arguments bound to its in_ptr parameters, the buffers it only reads.
  std::vector<std::string> loaded;
  SourceComments comments;
};

// Binds the positional arguments ARGS of a launch of KERNEL to its parameters: the buffers it
// stores (out_ptr, in_out_ptr) and loads (in_ptr), its sizes (a *numel argument that names a
// `..._xnumel = 256*s77` line takes that line's value from NUMELS), and the arguments past its
// parameters (a template's grid). Keyword arguments (`stream=stream0`) are skipped.
void bind_kernel_args(const Kernel& kernel, std::string_view args,
                      const std::unordered_map<std::string, std::string>& numels, Launch& launch);

}  // namespace fxscope::inductor
