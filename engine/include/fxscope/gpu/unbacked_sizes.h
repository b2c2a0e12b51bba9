#pragma once
// Sizes the data sets (unbacked symbols: u0 = the rows aten.nonzero finds, or a slice's length
// that a value read by .item() ends): no log records their values, and generated kernels take every
// size as a constant. A run binds each to the count a first run of the mode found, with the symbol
// at its upper bound (the input's elements) while that run looks, so that every buffer it sizes
// holds what the op may write.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// A slice whose end is a value read from a tensor (x[:, :n] with n = t.max().item()): its length
// is that value clamped to the sliced dim, less its start.
struct SliceByItem {
  std::int64_t start = 0;
  std::int64_t size = 0;    // the sliced dim's
  std::string item_symbol;  // the .item()'s own symbol (u0), bound to the value read
};

// A size the data sets, as a symbol HINTS lack with its upper bound: the rows of a nonzero
// (NODE is the nonzero), or the length of a slice ended by an .item() (NODE is the tensor the
// item reads, SLICE says how the length follows from its value).
struct UnboundCount {
  graph::NodeId node = 0;
  std::string symbol;
  std::int64_t upper_bound = 0;
  std::optional<SliceByItem> slice;
};
std::vector<UnboundCount> unbound_counts(const graph::Graph& graph, const ops::SymbolHints& hints);

// HINTS with every unbound count at its upper bound.
ops::SymbolHints with_upper_bounds(const graph::Graph& graph, const ops::SymbolHints& hints);

// The first symbol named like an unbacked one (u0, u12) that META's sizes or strides name and
// HINTS lack.
std::optional<std::string> unbound_unbacked_symbol(const graph::TensorMeta& meta,
                                                   const ops::SymbolHints& hints);

// META with each size or stride that names unbacked symbols, all of which HINTS bind, written
// as its number.
void bind_unbacked_dims(graph::TensorMeta& meta, const ops::SymbolHints& hints);

// The values C binds once its node's value is read back (BYTES, of META, sized by HINTS): the
// rows a nonzero found, or a slice's length and the item's value that ends it.
ops::SymbolHints counts_found(const UnboundCount& c, const graph::TensorMeta& meta,
                              const std::vector<std::byte>& bytes, const ops::SymbolHints& hints);

// The rows a nonzero kernel found: those of its output (read back as BYTES, sized by HINTS)
// whose first coordinate is not the -1 it stores past the count.
std::int64_t nonzero_rows_found(const graph::TensorMeta& meta, const std::vector<std::byte>& bytes,
                                const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
