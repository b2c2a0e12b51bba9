#include "fxscope/inductor/output_code.h"

#include <algorithm>
#include <utility>

namespace fxscope::inductor {

OutputCode::OutputCode(std::vector<Kernel> kernels, std::vector<Launch> launches, Warnings warnings)
    : kernels_(std::move(kernels)),
      launches_(std::move(launches)),
      launch_counts_(kernels_.size(), 0),
      warnings_(std::move(warnings)) {
  for (const Launch& launch : launches_) {
    if (launch.kernel && *launch.kernel < launch_counts_.size()) ++launch_counts_[*launch.kernel];
  }
}

std::optional<std::size_t> OutputCode::find_kernel(std::string_view name) const {
  for (std::size_t i = 0; i < kernels_.size(); ++i) {
    if (kernels_[i].name == name) return i;
  }
  return std::nullopt;
}

std::size_t OutputCode::launch_count(std::size_t kernel) const {
  return kernel < launch_counts_.size() ? launch_counts_[kernel] : 0;
}

std::size_t OutputCode::kernel_launch_count() const {
  return static_cast<std::size_t>(
      std::count_if(launches_.begin(), launches_.end(),
                    [](const Launch& l) { return l.kind == LaunchKind::kernel; }));
}

std::size_t OutputCode::extern_launch_count() const {
  return launches_.size() - kernel_launch_count();
}

std::vector<std::string> OutputCode::launch_functions() const {
  std::vector<std::string> names;
  for (const Launch& launch : launches_) {
    if (std::find(names.begin(), names.end(), launch.function) == names.end()) {
      names.push_back(launch.function);
    }
  }
  return names;
}

}  // namespace fxscope::inductor
