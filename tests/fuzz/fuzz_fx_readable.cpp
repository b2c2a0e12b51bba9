// Fuzz target: fxscope::graph::parse_fx_readable, the parser of GraphModule.print_readable code
// (dynamo_output_graph, aot_*_graph and inductor_post_grad_graph payloads).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fxscope/graph/fx_readable_parser.h"
#include "parsed_graph_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view code(reinterpret_cast<const char*>(data), size);
  fxscope::fuzz::check_parsed_graph(fxscope::graph::parse_fx_readable(code, "fuzz"), "post_grad");
  return 0;
}
