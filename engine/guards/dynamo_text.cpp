#include "fxscope/guards/dynamo_text.h"

#include "fxscope/core/text.h"

namespace fxscope::guards {

CodeAndComment split_comment(std::string_view text_in) {
  char quote = 0;
  for (std::size_t i = 0; i < text_in.size(); ++i) {
    const char c = text_in[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return {text::trim(text_in.substr(0, i)), text::trim(text_in.substr(i + 1))};
    }
  }
  return {text::trim(text_in), {}};
}

std::string strip_local_scope(std::string_view s) {
  // Dynamo's regex, L\[\s*['"](.*?)['"]\s*\], written out: the shortest match wins.
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == 'L' && i + 1 < s.size() && s[i + 1] == '[') {
      std::size_t j = i + 2;
      while (j < s.size() && s[j] == ' ') ++j;
      if (j < s.size() && (s[j] == '\'' || s[j] == '"')) {
        const std::size_t start = j + 1;
        bool replaced = false;
        for (std::size_t k = start; k < s.size(); ++k) {
          if (s[k] != '\'' && s[k] != '"') continue;
          std::size_t m = k + 1;
          while (m < s.size() && s[m] == ' ') ++m;
          if (m < s.size() && s[m] == ']') {
            out.append(s.substr(start, k - start));
            i = m + 1;
            replaced = true;
            break;
          }
        }
        if (replaced) continue;
      }
    }
    out.push_back(s[i]);
    ++i;
  }
  return out;
}

std::optional<TensorAccess> parse_tensor_access(std::string_view source) {
  source = text::trim(source);
  if (!text::ends_with(source, "]")) return std::nullopt;
  const auto open = source.rfind('[');
  if (open == std::string_view::npos) return std::nullopt;
  const auto index = text::parse_int(source.substr(open + 1, source.size() - open - 2));
  if (!index || *index < 0) return std::nullopt;
  const auto head = source.substr(0, open);
  TensorAccess access;
  access.index = static_cast<std::size_t>(*index);
  if (text::ends_with(head, ".size()")) {
    access.kind = TensorAccess::Kind::kSize;
    access.base = std::string(head.substr(0, head.size() - 7));
  } else if (text::ends_with(head, ".stride()")) {
    access.kind = TensorAccess::Kind::kStride;
    access.base = std::string(head.substr(0, head.size() - 9));
  } else {
    return std::nullopt;
  }
  if (access.base.empty()) return std::nullopt;
  return access;
}

}  // namespace fxscope::guards
