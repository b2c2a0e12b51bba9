#pragma once
// Tensor element types under every spelling a user or a log gives them.

#include <optional>
#include <string_view>

namespace fxscope::guards {

// One dtype: c10's name (what guard failure messages print), torch's and the short form of
// graph annotations.
struct Dtype {
  std::string_view c10_name;    // "Float"
  std::string_view torch_name;  // "torch.float32"
  std::string_view short_name;  // "f32"

  bool operator==(const Dtype& other) const { return c10_name == other.c10_name; }
};

// Accepts f32, float32, torch.float32, Float, float (case-insensitive); nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view name);

}  // namespace fxscope::guards
