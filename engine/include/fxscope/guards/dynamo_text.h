#pragma once
// Text conventions of Dynamo's guard printing shared by the parser and the evaluator.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fxscope::guards {

// Splits "L['act'] == 'relu'     # return ...  # file.py:92" into code and comment at the
// first '#' outside a quoted string; both trimmed.
struct CodeAndComment {
  std::string_view code;
  std::string_view comment;
};
CodeAndComment split_comment(std::string_view text);

// Dynamo's strip_local_scope: L['x'] -> x, L["x"] -> x, everywhere in S.
std::string strip_local_scope(std::string_view s);

// "L['x'].size()[1]" -> {"L['x']", size, 1}; nullopt for other sources.
struct TensorAccess {
  enum class Kind { kSize, kStride };
  std::string base;
  Kind kind = Kind::kSize;
  std::size_t index = 0;
};
std::optional<TensorAccess> parse_tensor_access(std::string_view source);

}  // namespace fxscope::guards
