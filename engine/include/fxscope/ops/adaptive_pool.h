#pragma once
// Adaptive average pooling to an output other than 1x1 (AlexNet's and VGG's 7x7 or 6x6): output
// element o of a dimension of IN positions pooled to OUT averages the inputs from o * IN / OUT
// up to ceil((o + 1) * IN / OUT), as ATen defines it. Inductor lowers it as a Pointwise over
// that window (lowering._adaptive_avg_pool2d: a clone where the sizes agree, avg_pool2d where
// they divide) while its largest window holds at most 25 positions, and calls ATen beyond; a
// 1x1 output is a mean over the plane, a reduction.

#include <cstdint>
#include <optional>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::ops {

// Whether NODE is an adaptive average pooling whose output is not 1x1 (its args say so).
bool adaptive_pool_windowed(const graph::Node& node);

struct AdaptiveWindow {
  std::int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::int64_t max_h = 1, max_w = 1;  // the largest window's extent (Inductor's h_kernel_max)
  // The positions Inductor's Pointwise loads: one for a clone, the avg_pool2d kernel where the
  // sizes divide, else the largest window.
  std::int64_t positions() const {
    if (in_h == out_h && in_w == out_w) return 1;
    if (in_h % out_h == 0 && in_w % out_w == 0) return (in_h / out_h) * (in_w / out_w);
    return max_h * max_w;
  }
};

// NODE's window over its input's last two dims; nullopt when it is not windowed or sizes are
// missing.
std::optional<AdaptiveWindow> adaptive_window(const graph::Graph& graph, graph::NodeId node,
                                              const SymbolHints& hints);

// Whether NODE's output sizes are its input's (by the hints): lowering._adaptive_avg_pool2d then
// returns clone(x), a Pointwise loading its input where it stores, sized as the input.
bool adaptive_pool_is_clone(const graph::Graph& graph, graph::NodeId node,
                            const SymbolHints& hints);

}  // namespace fxscope::ops
