#pragma once
// The launch facts a Triton kernel's source states in its decorator and signature, read with a few
// plain searches (no Python evaluation): enough to know its shape without running Inductor.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fxscope::inductor {

// Decorator and signature facts of one Triton kernel; fields stay empty where the source lacks
// them.
struct TritonMeta {
  std::string heuristic;  // `@triton_heuristics.pointwise` -> "pointwise"; also reduction, template
  std::vector<std::pair<std::string, std::int64_t>> size_hints;  // {"x", 128}, {"r0_", 1024}
  // Run-time parameters of the jit function in order (tl.constexpr ones dropped): launches pass
  // their positional arguments in this order, which is how numel and grid arguments are found.
  std::vector<std::string> params;
  std::string kernel_name;  // inductor_meta's 'kernel_name'
  std::vector<std::string> mutated_arg_names;
  std::optional<std::int64_t> num_load;
  std::optional<std::int64_t> num_store;
  std::optional<std::int64_t> num_reduction;
  std::optional<std::int64_t> num_warps;  // templates fix these in the decorator
  std::optional<std::int64_t> num_stages;
};

// Reads SOURCE, the body of the `async_compile.triton(...)` string defining KERNEL (the source
// may define helper functions first); never fails, only finds less.
TritonMeta parse_triton_meta(std::string_view source, std::string_view kernel);

}  // namespace fxscope::inductor
