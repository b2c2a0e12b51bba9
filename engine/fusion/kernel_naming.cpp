// Inductor-style kernel names.

#include "fxscope/fusion/kernel_naming.h"

#include <set>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion {

std::string_view kernel_prefix(GroupKind kind) {
  switch (kind) {
    case GroupKind::pointwise:
      return "triton_poi";
    case GroupKind::reduction:
      return "triton_red";
    case GroupKind::persistent_reduction:
      return "triton_per";
    case GroupKind::template_gemm:
      return "triton_tem";
    case GroupKind::combo:
      return "triton_for";
    case GroupKind::extern_kernel:
    case GroupKind::eager_op:
      return "";
  }
  return "";
}

std::string kernel_name(const graph::Graph& graph, const std::vector<graph::NodeId>& nodes,
                        GroupKind kind, std::size_t index) {
  std::set<std::string_view> names;
  for (const graph::NodeId id : nodes) {
    const graph::Node& node = graph.node(id);
    if (!node.is_op() || node.target == "operator.getitem") continue;
    names.insert(ops::op_base_name(node.target));
  }
  std::string name(kernel_prefix(kind));
  name += "_fused";
  for (const std::string_view n : names) {
    name += '_';
    name += n;
  }
  return name + "_" + std::to_string(index);
}

}  // namespace fxscope::fusion
