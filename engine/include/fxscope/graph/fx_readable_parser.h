#pragma once
// Parser for the readable FX code in TORCH_TRACE (GraphModule.print_readable): the
// `dynamo_output_graph`, `aot_*_graph` and `inductor_post_grad_graph` payloads.

#include <string_view>

#include "fxscope/graph/parsed_graph.h"

namespace fxscope::graph {

// Parses `class GraphModule(torch.nn.Module): def forward(self, ...): ...` into a Graph; nested
// classes become subgraphs. WHERE names the input in warnings ("[0/0] post-grad graph"). Never
// throws and never stops early: a line that does not parse becomes a warning (and, where it
// defines a name, an opaque node so later references still resolve).
ParsedGraph parse_fx_readable(std::string_view code, std::string_view where);

}  // namespace fxscope::graph
