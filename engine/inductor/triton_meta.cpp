#include "fxscope/inductor/triton_meta.h"

#include <string>

#include "fxscope/core/text.h"

namespace fxscope::inductor {

namespace {

// The text between OPEN at or after FROM and the matching CLOSE (no nesting needed for the
// dicts and lists read here); nothing when either is missing.
std::optional<std::string_view> between(std::string_view s, std::size_t from, char open,
                                        char close) {
  const std::size_t a = s.find(open, from);
  if (a == std::string_view::npos) return std::nullopt;
  const std::size_t b = s.find(close, a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  return s.substr(a + 1, b - a - 1);
}

std::string_view unquote(std::string_view s) {
  s = text::trim(s);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

// The integer right after KEY (`'num_load': 3`, `num_warps=4`).
std::optional<std::int64_t> int_after(std::string_view s, std::string_view key) {
  const std::size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = at + key.size();
  while (end < s.size() && (text::is_identifier_char(s[end]) || s[end] == '-')) ++end;
  return text::parse_int(s.substr(at + key.size(), end - at - key.size()));
}

void read_size_hints(std::string_view source, TritonMeta& meta) {
  constexpr std::string_view kKey = "size_hints={";
  const std::size_t at = source.find(kKey);
  if (at == std::string_view::npos) return;
  const auto dict = between(source, at + kKey.size() - 1, '{', '}');
  if (!dict) return;
  for (const std::string_view item : text::split_top_level(*dict, ",")) {
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) continue;
    const auto value = text::parse_int(item.substr(colon + 1));
    if (value) meta.size_hints.emplace_back(unquote(item.substr(0, colon)), *value);
  }
}

// `def name(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):` -> {in_ptr0, out_ptr0, xnumel}.
void read_params(std::string_view source, std::string_view kernel, TritonMeta& meta) {
  const std::string def_line = "def " + std::string(kernel) + "(";
  const std::size_t def = source.find(def_line);
  if (def == std::string_view::npos) return;
  const auto params = between(source, def, '(', ')');
  if (!params) return;
  for (const std::string_view param : text::split_top_level(*params, ",")) {
    if (param.find("constexpr") != std::string_view::npos) continue;
    const std::string_view name = text::trim(param.substr(0, param.find(':')));
    if (!name.empty()) meta.params.emplace_back(name);
  }
}

}  // namespace

TritonMeta parse_triton_meta(std::string_view source, std::string_view kernel) {
  TritonMeta meta;
  constexpr std::string_view kDecorator = "@triton_heuristics.";
  if (const std::size_t at = source.find(kDecorator); at != std::string_view::npos) {
    std::size_t end = at + kDecorator.size();
    while (end < source.size() && text::is_identifier_char(source[end])) ++end;
    meta.heuristic =
        std::string(source.substr(at + kDecorator.size(), end - at - kDecorator.size()));
  }
  read_size_hints(source, meta);
  read_params(source, kernel, meta);
  constexpr std::string_view kName = "'kernel_name': ";
  if (const std::size_t at = source.find(kName); at != std::string_view::npos) {
    const auto name = between(source, at + kName.size(), '\'', '\'');
    if (name) meta.kernel_name = std::string(*name);
  }
  constexpr std::string_view kMutated = "'mutated_arg_names': ";
  if (const std::size_t at = source.find(kMutated); at != std::string_view::npos) {
    const auto list = between(source, at + kMutated.size(), '[', ']');
    if (list && !text::trim(*list).empty()) {
      for (const std::string_view item : text::split_top_level(*list, ",")) {
        meta.mutated_arg_names.emplace_back(unquote(item));
      }
    }
  }
  meta.num_load = int_after(source, "'num_load': ");
  meta.num_store = int_after(source, "'num_store': ");
  meta.num_reduction = int_after(source, "'num_reduction': ");
  meta.num_warps = int_after(source, "num_warps=");
  meta.num_stages = int_after(source, "num_stages=");
  return meta;
}

}  // namespace fxscope::inductor
