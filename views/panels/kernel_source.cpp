#include "panels/kernel_source.h"

#include "fxscope/codegen/unit_kernel_sources.h"

namespace fxscope::views {

std::string kernel_source_text(const CanvasGraph& graph, graph::NodeId node) {
  if (node >= graph.group_of.size() || graph.group_of[node] < 0) {
    return "// " + (node < graph.graph.size() ? graph.graph.node(node).name : std::string("?")) +
           " is in no kernel of this plan (an input, an output or a view)\n";
  }
  const CanvasGroup& group = graph.groups[static_cast<std::size_t>(graph.group_of[node])];
  if (!graph.fusion) {
    return "// " + group.name +
           " is Inductor's kernel: Groups > fxscope shows the CUDA C fxscope generates\n";
  }
  std::string text;
  for (const std::size_t g : group.plan_groups) {
    if (g >= graph.fusion->ours.groups.size()) continue;
    if (!text.empty()) text += "\n";
    auto source = codegen::group_kernel_source(*graph.fusion, graph.fusion->ours.groups[g], false);
    text += source ? *source : "// " + source.error().message + "\n";
  }
  return text;
}

}  // namespace fxscope::views
