// Fuzz target: fxscope::graph::find_graph_fragments and parse_graph_fragment, the parsers of the
// `# Graph fragment:` node lines in Inductor's output code.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fxscope/graph/graph_fragment_parser.h"
#include "parsed_graph_check.h"

namespace {

// The fragments are views of the code they were found in.
void check_inside(std::string_view text, std::string_view part) {
  if (part.empty()) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(text.data());
  const auto at = reinterpret_cast<std::uintptr_t>(part.data());
  if (at < begin || at + part.size() > begin + text.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view lines(reinterpret_cast<const char*>(data), size);
  for (const std::string_view fragment : fxscope::graph::find_graph_fragments(lines)) {
    check_inside(lines, fragment);
    fxscope::fuzz::check_parsed_graph(fxscope::graph::parse_graph_fragment(fragment, "fuzz"),
                                      "fragments");
  }
  fxscope::fuzz::check_parsed_graph(fxscope::graph::parse_graph_fragment(lines, "fuzz"),
                                    "fragments");
  return 0;
}
