// Fuzz target: fxscope::inductor::parse_output_code, the reader of Inductor's output code (the
// inductor_output_code payload: kernel definitions and their launches).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fxscope/inductor/output_code.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view code(reinterpret_cast<const char*>(data), size);
  const auto output = fxscope::inductor::parse_output_code(code, "fuzz");

  // The indices and counts the views rely on must agree with each other.
  const auto& kernels = output.kernels();
  std::size_t launched = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto found = output.find_kernel(kernels[k].name);
    if (!found || *found >= kernels.size()) std::abort();
    launched += output.launch_count(k);
  }
  for (const auto& launch : output.launches()) {
    if (launch.kernel && *launch.kernel >= kernels.size()) std::abort();
  }
  if (output.kernel_launch_count() + output.extern_launch_count() > output.launches().size()) {
    std::abort();
  }
  if (launched > output.launches().size()) std::abort();
  static_cast<void>(output.launch_functions());
  return 0;
}
