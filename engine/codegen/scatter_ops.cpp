// Ops whose output element is one input's element at a computed place, or another input's where
// a mask says so: slice_scatter, select_scatter and as_strided_scatter (a view's region of a tensor
// replaced), gather (a per-element index along one dim) and repeat (tiling). Written from ATen's
// definitions: each output element reads exactly one element, so each lowers as an inlinable value.

#include <algorithm>
#include <limits>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "value_emitter.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;

// A slice bound as ATen normalises it: counted from the end when negative, then clamped.
std::int64_t slice_bound(std::int64_t v, std::int64_t size) {
  if (v < 0) v += size;
  return std::max<std::int64_t>(0, std::min(v, size));
}

}  // namespace

Result<std::string> ValueEmitter::scatter_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  const std::string base(ops::op_base_name(n.target));
  const std::size_t rank = idx.dims.size();

  if (base == "slice_scatter" || base == "select_scatter") {
    // out = input, with out[..., region, ...] = src: the region is slice(dim, start, end, step)
    // or select(dim, index) of the output.
    if (n.args.size() < 2 || !n.args[0].is_node() || !n.args[1].is_node()) {
      return fail(node, "needs an input and a source");
    }
    const auto out = shape_of(n, hints_);
    if (!out || out->sizes.size() != rank) return fail(node, "has no annotation of its rank");
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 2, 0), rank));
    if (dim >= rank) return fail(node, "scatters along a missing dimension");
    const std::int64_t size = out->sizes[dim];
    const std::string i = "(" + idx.dims[dim] + ")";
    Index at = idx;
    at.linear.clear();
    std::string inside;
    if (base == "select_scatter") {
      const std::int64_t k = slice_bound(int_at(n, 3, 0), size);
      inside = i + " == " + std::to_string(k);
      at.dims.erase(at.dims.begin() + static_cast<std::ptrdiff_t>(dim));
    } else {
      const std::int64_t start = slice_bound(int_at(n, 3, 0), size);
      const std::int64_t end =
          slice_bound(int_at(n, 4, std::numeric_limits<std::int64_t>::max()), size);
      const std::int64_t step = std::max<std::int64_t>(1, int_at(n, 5, 1));
      const std::string from = shift_index(idx.dims[dim], -start);
      inside = i + " >= " + std::to_string(start) + " && " + i + " < " + std::to_string(end);
      if (step != 1) inside += " && " + from + " % " + std::to_string(step) + " == 0";
      at.dims[dim] = step == 1 ? from : from + " / " + std::to_string(step);
    }
    // The kept value first, outside the branch: the source, read through a slice of the same
    // tensor, finds it in the value cache instead of reading it again (see shift_index).
    auto kept = value(n.args[0].as_node(), idx);
    if (!kept) return kept;
    return value_where(n, *kept, inside, n.args[1].as_node(), at);
  }

  if (base == "as_strided_scatter") return as_strided_scatter_value(node, idx);

  if (base == "gather") {
    // out[i0, .., id, ..] = input[i0, .., index[i0, .., id, ..], ..] along DIM.
    if (n.args.size() < 3 || !n.args[0].is_node() || !n.args[2].is_node()) {
      return fail(node, "needs an input, a dim and an index");
    }
    const auto in = shape_of(g_.node(n.args[0].as_node()), hints_);
    if (!in || in->sizes.size() != rank) return fail(node, "gathers across ranks");
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, 0), rank));
    if (dim >= rank) return fail(node, "gathers along a missing dimension");
    auto k = value(n.args[2].as_node(), idx);
    if (!k) return k;
    Index at = idx;
    at.linear.clear();
    const std::string size = std::to_string(in->sizes[dim]);
    at.dims[dim] = "(" + *k + " < 0 ? " + *k + " + " + size + " : " + *k + ")";
    return value(n.args[0].as_node(), at);
  }

  if (base == "repeat") {
    // The input tiled: its dims align with the output's last ones, each read modulo its size.
    if (n.args.empty() || !n.args[0].is_node()) return fail(node, "has no input");
    const auto in = shape_of(g_.node(n.args[0].as_node()), hints_);
    if (!in || in->sizes.size() > rank) return fail(node, "repeats a tensor of a higher rank");
    const std::size_t off = rank - in->sizes.size();
    Index at;
    for (std::size_t d = 0; d < in->sizes.size(); ++d) {
      const std::int64_t s = in->sizes[d];
      at.dims.push_back(s == 1 ? "0" : "(" + idx.dims[d + off] + ") % " + std::to_string(s));
    }
    return value(n.args[0].as_node(), at);
  }
  return fail(node, "has no CUDA lowering in fxscope's code generator");
}

// as_strided_scatter(input, src, size, stride, offset): a copy of input whose storage, seen through
// as_strided(size, stride, offset), holds src (ATen's as_strided_scatter; eager graphs keep it
// where Inductor's reinplacing pass makes it clone, as_strided and copy_). An output element at
// storage position p is in the view when p - offset splits into in-range coordinates along the
// view's strides, largest first: exact for views whose each stride exceeds the span of the smaller
// ones, which the lowering checks (overlapping or interleaved views are refused).
Result<std::string> ValueEmitter::as_strided_scatter_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (n.args.size() < 4 || !n.args[0].is_node() || !n.args[1].is_node()) {
    return fail(node, "needs an input, a source, sizes and strides");
  }
  const auto out = shape_of(n, hints_);
  if (!out || out->sizes.size() != idx.dims.size() || out->strides.size() != idx.dims.size()) {
    return fail(node, "has no annotation of its rank");
  }
  const std::vector<std::int64_t> size = ints_at(n, 2);
  const std::vector<std::int64_t> stride = ints_at(n, 3);
  const std::int64_t offset = int_at(n, 4, 0);
  if (size.size() != stride.size()) return fail(node, "has sizes and strides of different ranks");
  std::vector<std::size_t> order;
  for (std::size_t d = 0; d < size.size(); ++d) {
    if (size[d] > 1) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return stride[a] > stride[b]; });
  std::int64_t span = 0;  // the largest offset the smaller strides reach
  for (std::size_t k = order.size(); k-- > 0;) {
    const std::size_t d = order[k];
    if (stride[d] <= span) return fail(node, "scatters into an overlapping or interleaved view");
    span += (size[d] - 1) * stride[d];
  }
  std::string p = "0";
  for (std::size_t d = 0; d < idx.dims.size(); ++d) {
    if (out->sizes[d] > 1)
      p += " + (long long)(" + idx.dims[d] + ") * " + std::to_string(out->strides[d]);
  }
  const std::string from =
      declare("long long", n.name + "_from", p + " - " + std::to_string(offset));
  const std::string q = fresh(n.name + "_q");
  line("long long " + q + " = " + from + ";");
  std::string inside = from + " >= 0";
  Index at;
  at.dims.assign(size.size(), "0");
  for (const std::size_t d : order) {
    const std::string s = std::to_string(stride[d]);
    at.dims[d] = declare("long long", n.name + "_j", q + " / " + s);
    inside += " && " + at.dims[d] + " < " + std::to_string(size[d]);
    line(q + " = " + q + " % " + s + ";");
  }
  inside += " && " + q + " == 0";
  auto kept = value(n.args[0].as_node(), idx);
  if (!kept) return kept;
  return value_where(n, *kept, inside, n.args[1].as_node(), at);
}

}  // namespace fxscope::codegen
