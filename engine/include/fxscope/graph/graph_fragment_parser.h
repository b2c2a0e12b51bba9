#pragma once
// Parser for the `# Graph fragment:` comment blocks of Inductor's output code, lines such as
// `%add : Tensor "f32[8, 64][64, 1]cuda:0"[num_users=2] = call_function[target=torch.ops.aten.
// add.Tensor](args = (%arg1_1, %mm), kwargs = {})` (the form of torch.fx.Node.format_node).

#include <string_view>
#include <vector>

#include "fxscope/graph/parsed_graph.h"

namespace fxscope::graph {

// The text of each `# Graph fragment:` block of OUTPUT_CODE (the `#   %...` lines after it).
std::vector<std::string_view> find_graph_fragments(std::string_view output_code);

// Parses node lines with or without the leading `#   `. Given whole output code, only lines inside
// `# Graph fragment:` blocks count. Nodes repeated across fragments are merged (a definition
// replaces an earlier PlaceHolder of the same name); every `return` adds to one output node.
// Names a fragment uses without listing them (extern kernel results) become placeholders.
ParsedGraph parse_graph_fragment(std::string_view lines, std::string_view where);

}  // namespace fxscope::graph
