#pragma once
// A max pooling window's geometry over the last two dims, as max_pool2d_with_indices and
// Inductor's _low_memory_max_pool_with_offsets take it (kernel, stride, padding, dilation), read
// once for the plain per-output form and the staged form alike.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::codegen {

struct PoolWindow {
  std::int64_t kh = 1, kw = 1;  // window
  std::int64_t sh = 1, sw = 1;  // stride (the window's size when not given)
  std::int64_t ph = 0, pw = 0;  // padding
  std::int64_t dh = 1, dw = 1;  // dilation
  // max_pool2d_with_indices' second output is the flat h * W + w of the input; Inductor's
  // offsets are kh * kernel_w + kw within the window.
  bool flat_indices = false;
};

// Whether NODE is a max pooling whose value and offsets come from getitem 0 and 1.
inline bool is_max_pool(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "_low_memory_max_pool_with_offsets" || base == "max_pool2d_with_indices";
}

// NODE's window; nullopt without a kernel size.
inline std::optional<PoolWindow> max_pool_window(const graph::Node& node) {
  const std::vector<std::int64_t> kernel = ints_at(node, 1);
  if (kernel.empty()) return std::nullopt;
  const std::vector<std::int64_t> stride = ints_at(node, 2);
  const std::vector<std::int64_t> pad = ints_at(node, 3);
  const std::vector<std::int64_t> dil = ints_at(node, 4);
  const auto pick = [](const std::vector<std::int64_t>& v, std::size_t i, std::int64_t dflt) {
    return v.empty() ? dflt : v[std::min(i, v.size() - 1)];
  };
  PoolWindow w;
  w.kh = pick(kernel, 0, 1);
  w.kw = pick(kernel, 1, 1);
  w.sh = pick(stride, 0, w.kh);
  w.sw = pick(stride, 1, w.kw);
  w.ph = pick(pad, 0, 0);
  w.pw = pick(pad, 1, 0);
  w.dh = pick(dil, 0, 1);
  w.dw = pick(dil, 1, 1);
  w.flat_indices = ops::op_base_name(node.target) == "max_pool2d_with_indices";
  return w;
}

}  // namespace fxscope::codegen
