#pragma once
// Where an element goes through a chain of views: the index of a node that is another node's
// value permuted, reshaped, copied or cast, at the element that node's value at a given index
// becomes. The kernels walk values backward (from the element they store to what it reads); a
// reduction kernel iterates over its reduction's rows instead, so a value it stores through a
// permute is stored where that row's element lands, as Inductor's store index does.

#include <functional>
#include <optional>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"
#include "value_emitter.h"

namespace fxscope::codegen {

// The index of node TO in the kernel's iteration: TO's value is a chain of view, permute,
// reshape, clone and cast ops over a base node (the first other op down its first inputs),
// BASE_INDEX gives the base's index (nullopt: the base is not in the
// kernel's iteration), and the chain carries it forward. Without a permute or
// transpose in the chain, row-major order is kept: nullopt, and the caller's own rule applies.
std::optional<Index> index_through_views(
    const graph::Graph& g, graph::NodeId to, const ops::SymbolHints& hints,
    const std::function<std::optional<Index>(graph::NodeId)>& base_index);

// The index of node TO where the kernel's iteration reaches node FROM at FROM_INDEX, TO being the
// base FROM's chain of view, permute, reshape, clone and cast ops leads down to (a convolution
// a layer norm reads permuted, whose biased value the kernel stores back in place): the chain
// walked backward, each op's index mapped to its input's; nullopt where FROM's chain does not
// reach TO.
std::optional<Index> index_of_view_base(const graph::Graph& g, graph::NodeId from,
                                        const Index& from_index, graph::NodeId to,
                                        const ops::SymbolHints& hints);

}  // namespace fxscope::codegen
