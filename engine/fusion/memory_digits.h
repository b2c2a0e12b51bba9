#pragma once
// The canonical digits of an address (memory_index.cpp), shared with the loop reordering
// (memory_loop_order.cpp), and the small builders of addresses and coordinates the index model's
// files share (memory_coords.cpp).

#include <cstdint>
#include <optional>
#include <vector>

#include "fxscope/graph/argument.h"

#include "fxscope/fusion/memory_index.h"

namespace fxscope::fusion::detail {

// The digits of an iteration of NUMEL as TERMS leave them: gaps filled with digits the address
// does not use, sorted outermost first, adjacent digits that step as one merged.
std::vector<IndexTerm> canonical(std::vector<IndexTerm> terms, std::int64_t numel);

IndexExpr constant(std::int64_t c);
// An address no other equals, unless both carry the same nonzero TAG.
IndexExpr opaque_expr(std::int64_t tag = 0);
Coords opaque_coords(std::size_t rank, std::int64_t tag = 0);
bool is_int(const graph::Argument& a);
std::int64_t wrap_dim(std::int64_t d, std::size_t rank);
// Coordinates OUT of a value of OUT_SIZES broadcast from a value of IN_SIZES (aligned right,
// dims of size 1 read at 0); nullopt where the shapes do not broadcast.
std::optional<Coords> broadcast_from(const Coords& out, const std::vector<std::int64_t>& out_sizes,
                                     const std::vector<std::int64_t>& in_sizes);

}  // namespace fxscope::fusion::detail
