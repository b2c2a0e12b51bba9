#pragma once
// Reading an FX node's literal arguments (dims, sizes, scalars, keyword arguments) by position.

#include <cstdint>
#include <string_view>
#include <vector>

#include "fxscope/graph/node.h"

namespace fxscope::codegen {

// Positional argument I as an integer, or FALLBACK when absent or not an integer.
inline std::int64_t int_at(const graph::Node& node, std::size_t i, std::int64_t fallback) {
  if (i < node.args.size() && node.args[i].kind() == graph::Argument::Kind::integer) {
    return node.args[i].as_int();
  }
  return fallback;
}

// The integers of a list argument (or of a single integer).
inline std::vector<std::int64_t> ints_of(const graph::Argument& arg) {
  std::vector<std::int64_t> out;
  if (arg.kind() == graph::Argument::Kind::integer) out.push_back(arg.as_int());
  for (const graph::Argument& item : arg.items()) {
    if (item.kind() == graph::Argument::Kind::integer) out.push_back(item.as_int());
  }
  return out;
}

inline std::vector<std::int64_t> ints_at(const graph::Node& node, std::size_t i) {
  return i < node.args.size() ? ints_of(node.args[i]) : std::vector<std::int64_t>{};
}

// Keyword argument NAME, or nullptr.
inline const graph::Argument* kwarg(const graph::Node& node, std::string_view name) {
  for (const auto& [key, value] : node.kwargs) {
    if (key == name) return &value;
  }
  return nullptr;
}

// A negative dimension counted from the end.
inline std::int64_t wrap_dim(std::int64_t dim, std::size_t rank) {
  return dim < 0 ? dim + static_cast<std::int64_t>(rank) : dim;
}

}  // namespace fxscope::codegen
