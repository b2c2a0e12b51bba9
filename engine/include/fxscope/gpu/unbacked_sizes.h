#pragma once
// Sizes the data sets (unbacked symbols: u0 = the rows aten.nonzero finds): no log records their
// values, and generated kernels take every size as a constant. A run binds each to the count a
// first run of the mode found, with the symbol at its upper bound (the input's elements) while
// that run looks, so that every buffer it sizes holds what the op may write.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// A nonzero node whose row count is a symbol HINTS lack, with that symbol and its upper bound.
struct UnboundCount {
  graph::NodeId node = 0;
  std::string symbol;
  std::int64_t upper_bound = 0;
};
std::vector<UnboundCount> unbound_counts(const graph::Graph& graph, const ops::SymbolHints& hints);

// HINTS with every unbound count at its upper bound.
ops::SymbolHints with_upper_bounds(const graph::Graph& graph, const ops::SymbolHints& hints);

// The first symbol named like an unbacked one (u0, u12) that META's sizes or strides name and
// HINTS lack.
std::optional<std::string> unbound_unbacked_symbol(const graph::TensorMeta& meta,
                                                   const ops::SymbolHints& hints);

// The rows a nonzero kernel found: those of its output (read back as BYTES, sized by HINTS)
// whose first coordinate is not the -1 it stores past the count.
std::int64_t nonzero_rows_found(const graph::TensorMeta& meta, const std::vector<std::byte>& bytes,
                                const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
