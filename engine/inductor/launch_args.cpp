#include <string>

#include "fxscope/core/text.h"
#include "fxscope/inductor/call_statement.h"
#include "fxscope/inductor/launch.h"

namespace fxscope::inductor {

void bind_kernel_args(const Kernel& kernel, std::string_view args,
                      const std::unordered_map<std::string, std::string>& numels, Launch& launch) {
  const std::vector<std::string>& params = kernel.meta.params;
  if (params.empty()) return;
  std::size_t position = 0;
  for (std::string_view arg : text::split_top_level(args, ",")) {
    arg = text::trim(arg);
    if (arg.empty() || is_keyword_arg(arg)) continue;
    if (position >= params.size()) {
      launch.grid.emplace_back(arg);
    } else if (params[position].starts_with("out_ptr") ||
               params[position].starts_with("in_out_ptr")) {
      // TritonKernel names a stored buffer's parameter so (KernelArgs.output, make_inplace).
      launch.stored.emplace_back(arg);
    } else if (params[position].starts_with("in_ptr")) {
      launch.loaded.emplace_back(arg);
    } else if (text::ends_with(params[position], "numel")) {
      const auto bound = numels.find(std::string(arg));
      launch.numels.push_back(
          LaunchArg{params[position], bound == numels.end() ? std::string(arg) : bound->second});
    }
    ++position;
  }
}

}  // namespace fxscope::inductor
