// The builders of addresses and coordinates the index model's files share (memory_digits.h).

#include <algorithm>

#include "memory_digits.h"

namespace fxscope::fusion::detail {

IndexExpr constant(std::int64_t c) {
  IndexExpr e;
  e.offset = c;
  return e;
}

IndexExpr opaque_expr(std::int64_t tag) {
  IndexExpr e;
  e.opaque = true;
  e.tag = tag;
  return e;
}

bool is_int(const graph::Argument& a) {
  return a.kind() == graph::Argument::Kind::integer;
}

std::int64_t wrap_dim(std::int64_t d, std::size_t rank) {
  return d < 0 ? d + static_cast<std::int64_t>(rank) : d;
}

std::optional<Coords> broadcast_from(const Coords& out, const std::vector<std::int64_t>& out_sizes,
                                     const std::vector<std::int64_t>& in_sizes) {
  if (in_sizes.size() > out_sizes.size() || out.size() != out_sizes.size()) return std::nullopt;
  const std::size_t lead = out_sizes.size() - in_sizes.size();
  Coords in;
  for (std::size_t j = 0; j < in_sizes.size(); ++j) {
    if (in_sizes[j] == out_sizes[lead + j]) {
      in.push_back(out[lead + j]);
    } else if (in_sizes[j] == 1) {
      in.push_back(constant(0));
    } else {
      return std::nullopt;
    }
  }
  return in;
}

Coords opaque_coords(std::size_t rank, std::int64_t tag) {
  return Coords(std::max<std::size_t>(rank, 1), opaque_expr(tag));
}

}  // namespace fxscope::fusion::detail
