#pragma once
// Inductor's output code (the `inductor_output_code` payload of a TORCH_TRACE log, a Python
// module) read into the kernels it defines and the launches it makes: Inductor's real kernels.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/inductor/kernel.h"
#include "fxscope/inductor/launch.h"

namespace fxscope::inductor {

// The kernels and launches of one compiled graph, with what did not read as expected.
class OutputCode {
 public:
  OutputCode() = default;
  OutputCode(std::vector<Kernel> kernels, std::vector<Launch> launches, Warnings warnings);

  // Kernel definitions in the order of the module.
  const std::vector<Kernel>& kernels() const { return kernels_; }
  // Every launch of one GPU (or CPU) kernel per call of the compiled graph, in order: launches of
  // kernels defined in the module (Triton, including GEMM templates; C++ kernels) and extern
  // calls (extern_kernels.*, ATen fallbacks through torch.ops.* or aten.*). Not launches:
  // buffer allocation (empty_strided_*), views (reinterpret_tensor), `del`, asserts, stream
  // lookups, calls of partitions (their launches are counted inside partition_N), and anything
  // inside a ''' string. launches().size() is the "inductor_kernels" figure of a summary.
  const std::vector<Launch>& launches() const { return launches_; }
  const Warnings& warnings() const { return warnings_; }

  // Index of the kernel named NAME in kernels().
  std::optional<std::size_t> find_kernel(std::string_view name) const;
  // How many launches run kernels()[KERNEL] (a kernel can be launched several times).
  std::size_t launch_count(std::size_t kernel) const;
  std::size_t kernel_launch_count() const;  // launches of LaunchKind::kernel
  std::size_t extern_launch_count() const;  // launches of LaunchKind::extern_op
  // Functions that launch something, in the order of their first launch: {"call"}, or
  // {"partition_0", ...} when CUDA graphs split the graph.
  std::vector<std::string> launch_functions() const;

 private:
  std::vector<Kernel> kernels_;
  std::vector<Launch> launches_;
  std::vector<std::size_t> launch_counts_;  // parallel to kernels_
  Warnings warnings_;
};

// Reads CODE, never failing: what does not read as output code becomes a Warning whose `where`
// is WHERE (e.g. "[0/0] inductor_output_code") and the line. Linear in the size of CODE.
OutputCode parse_output_code(std::string_view code, std::string_view where);

// AOTInductor's C++ wrapper (the `inductor_aot_wrapper_code` graph dump) read as the output code
// of its graph: the launches its run_impl makes, in order, each with the source comments before
// it (extern launches are its C-shim calls: aoti_torch_cuda_convolution runs "convolution");
// the kernels they launch as AUTOTUNE (the `inductor_autotune_at_compile_time_code` module,
// whose kernels keep Inductor's headers, may be empty) defines them, else as the Triton source
// each launcher embeds in a comment. Never fails, as parse_output_code.
OutputCode parse_aot_wrapper_code(std::string_view wrapper, std::string_view autotune,
                                  std::string_view where);

}  // namespace fxscope::inductor
