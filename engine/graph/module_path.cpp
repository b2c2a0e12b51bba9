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

}  // namespace fxscope::graph
