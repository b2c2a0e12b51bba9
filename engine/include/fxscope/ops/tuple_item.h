#pragma once
// `operator.getitem(T, K)`: the element K of a node T that returns a tuple (var_mean, max_pool's
// values and indices, torch.cond's outputs, flex attention's).

#include <cstdint>
#include <optional>

#include "fxscope/graph/node.h"

namespace fxscope::ops {

struct TupleItem {
  graph::NodeId of = 0;
  std::int64_t index = 0;
};

// What NODE takes when it is a getitem of a node by an integer; nullopt for any other node (a
// getitem by a string key, a user's Triton kernel's named output, included).
std::optional<TupleItem> tuple_item(const graph::Node& node);

}  // namespace fxscope::ops
