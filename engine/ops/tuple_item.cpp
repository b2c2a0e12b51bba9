#include "fxscope/ops/tuple_item.h"

#include "fxscope/ops/op_registry.h"

namespace fxscope::ops {

std::optional<TupleItem> tuple_item(const graph::Node& node) {
  if (op_key(node.target) != "operator.getitem" || node.args.size() < 2 ||
      !node.args[0].is_node() || node.args[1].kind() != graph::Argument::Kind::integer) {
    return std::nullopt;
  }
  return TupleItem{node.args[0].as_node(), node.args[1].as_int()};
}

}  // namespace fxscope::ops
