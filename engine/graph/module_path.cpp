#include "fxscope/graph/module_path.h"

#include "fxscope/core/text.h"

namespace fxscope::graph {

std::string module_path_from_parameter(std::string_view name) {
  // Dynamo spells the source L['self']._modules['a']._parameters['w'] as
  // L_self_modules_a_parameters_w_ (the rebinding lower-cases the leading L).
  if (!text::starts_with(name, "L_self_modules_") && !text::starts_with(name, "l_self_modules_")) {
    return {};
  }
  std::string_view rest = name.substr(std::string_view("L_self_modules_").size());
  std::size_t leaf = rest.rfind("_parameters_");
  if (leaf == std::string_view::npos) leaf = rest.rfind("_buffers_");
  if (leaf == std::string_view::npos || leaf == 0) return {};
  rest = rest.substr(0, leaf);
  std::string path;
  constexpr std::string_view kSep = "_modules_";
  while (true) {
    const std::size_t sep = rest.find(kSep);
    path.append(rest.substr(0, sep));
    if (sep == std::string_view::npos) break;
    path += '.';
    rest = rest.substr(sep + kSep.size());
  }
  return path;
}

std::optional<std::string> attribute_path(std::string_view expr) {
  // The innermost getattr( holds `self`; each level out adds one quoted name, then dotted ones.
  std::string path;
  std::string_view rest = expr;
  std::size_t depth = 0;
  while (text::starts_with(rest, "getattr(")) {
    rest.remove_prefix(std::string_view("getattr(").size());
    ++depth;
  }
  if (!text::starts_with(rest, "self")) return std::nullopt;
  rest.remove_prefix(4);
  const auto append_dotted = [&](std::string_view& from) {
    // `.a.b` up to the next character no identifier holds.
    std::size_t end = 0;
    while (end < from.size() && (from[end] == '.' || text::is_identifier_char(from[end]))) ++end;
    const std::string_view dotted = from.substr(0, end);
    if (!dotted.empty() && (dotted.front() != '.' || !text::is_dotted_name(dotted.substr(1)))) {
      return false;
    }
    path.append(dotted);
    from.remove_prefix(end);
    return true;
  };
  if (!append_dotted(rest)) return std::nullopt;
  for (; depth > 0; --depth) {
    // `, "0")` then, outside it, more dotted names.
    if (!text::starts_with(rest, ", \"")) return std::nullopt;
    rest.remove_prefix(3);
    const std::size_t close = rest.find("\")");
    if (close == std::string_view::npos || close == 0) return std::nullopt;
    path += '.';
    path.append(rest.substr(0, close));
    rest.remove_prefix(close + 2);
    if (!append_dotted(rest)) return std::nullopt;
  }
  if (!rest.empty() || path.size() < 2) return std::nullopt;
  return path.substr(1);  // drop the leading '.' after self
}

}  // namespace fxscope::graph
