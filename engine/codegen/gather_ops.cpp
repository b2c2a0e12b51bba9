// Ops whose output element reads a computed address: embedding, index, cat, constant padding,
// and pooling windows. Loads that could fall outside a tensor are guarded by branches, so a
// value is only read where it exists.

#include <utility>

#include "arg_helpers.h"
#include "fxscope/ops/adaptive_pool.h"
#include "fxscope/ops/op_registry.h"
#include "pool_window.h"
#include "value_emitter.h"

namespace fxscope::codegen {
namespace {

using graph::Argument;
using graph::NodeId;

// Index of a gathered position: a runtime index value, wrapped when negative as PyTorch does.
std::string wrapped(const std::string& v, std::int64_t size) {
  return "(" + v + " < 0 ? " + v + " + " + std::to_string(size) + " : " + v + ")";
}

}  // namespace

Result<std::string> ValueEmitter::gather_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  const std::string base(ops::op_base_name(n.target));
  const auto out = shape_of(n, hints_);
  if (!out) return fail(node, "has no tensor annotation");
  const std::string t = compute_type(n.meta->dtype);
  const auto input_shape = [&](const Argument& arg) -> std::optional<Shape> {
    if (!arg.is_node()) return std::nullopt;
    return shape_of(g_.node(arg.as_node()), hints_);
  };

  if (base == "embedding") {
    // out[..., d] = weight[indices[...], d]
    if (n.args.size() < 2 || !n.args[0].is_node() || !n.args[1].is_node() || idx.dims.empty()) {
      return fail(node, "needs a weight and indices");
    }
    const auto weight = input_shape(n.args[0]);
    if (!weight || weight->sizes.size() != 2) return fail(node, "needs a 2-d weight");
    Index at;
    at.dims.assign(idx.dims.begin(), idx.dims.end() - 1);
    auto row = value(n.args[1].as_node(), at);
    if (!row) return row;
    return value(n.args[0].as_node(),
                 Index{{wrapped(*row, weight->sizes[0]), idx.dims.back()}, ""});
  }

  if (base == "index" || base == "_unsafe_index") {
    // x[i0, i1, ...] with index tensors broadcast together; None keeps a dimension as it is.
    if (n.args.size() < 2 || !n.args[0].is_node()) return fail(node, "needs a tensor and indices");
    const auto x = input_shape(n.args[0]);
    if (!x) return fail(node, "indexes a tensor without annotation");
    const std::vector<Argument>& indices = n.args[1].items();
    std::size_t first = 0;
    while (first < indices.size() && indices[first].is_none()) ++first;
    std::size_t count = 0;
    std::size_t bcast_rank = 0;
    for (std::size_t k = first; k < indices.size() && indices[k].is_node(); ++k, ++count) {
      const auto s = input_shape(indices[k]);
      if (!s) return fail(node, "has an index without annotation");
      bcast_rank = std::max(bcast_rank, s->sizes.size());
    }
    for (std::size_t k = first + count; k < indices.size(); ++k) {
      if (!indices[k].is_none()) return fail(node, "has index tensors that are not adjacent");
    }
    if (count == 0 || idx.dims.size() != x->sizes.size() - count + bcast_rank) {
      return fail(node, "has an index shape fxscope does not follow");
    }
    Index at;
    for (std::size_t d = 0; d < first; ++d) at.dims.push_back(idx.dims[d]);
    for (std::size_t k = 0; k < count; ++k) {
      const auto s = input_shape(indices[first + k]);
      Index ii;
      const std::size_t off = bcast_rank - s->sizes.size();
      for (std::size_t d = 0; d < s->sizes.size(); ++d) {
        ii.dims.push_back(s->sizes[d] == 1 ? "0" : idx.dims[first + off + d]);
      }
      auto v = value(indices[first + k].as_node(), ii);
      if (!v) return v;
      at.dims.push_back(wrapped(*v, x->sizes[first + k]));
    }
    for (std::size_t d = first + count; d < x->sizes.size(); ++d) {
      at.dims.push_back(idx.dims[d - count + bcast_rank]);
    }
    return value(n.args[0].as_node(), at);
  }

  if (base == "cat") {
    // The input whose range along DIM holds the index, read at the index minus its start.
    if (n.args.empty()) return fail(node, "has no inputs");
    const std::int64_t dim_arg = int_at(n, 1, 0);
    const auto dim = static_cast<std::size_t>(wrap_dim(dim_arg, idx.dims.size()));
    if (dim >= idx.dims.size()) return fail(node, "concatenates along a missing dimension");
    const std::string result = fresh("v_" + n.name);
    line(t + " " + result + ";");
    std::int64_t start = 0;
    const std::vector<Argument>& parts = n.args[0].items();
    for (const Argument& part : parts) {
      const auto s = input_shape(part);
      if (!s || s->sizes.size() != idx.dims.size()) continue;  // legacy empty inputs
      const std::int64_t end = start + s->sizes[dim];
      Index at = idx;
      at.linear.clear();
      if (start) at.dims[dim] = "(" + idx.dims[dim] + ") - " + std::to_string(start);
      open("if (" + idx.dims[dim] + " >= " + std::to_string(start) + " && " + idx.dims[dim] +
           " < " + std::to_string(end) + ") {");
      auto v = value(part.as_node(), at);
      if (!v) return v;
      line(result + " = (" + t + ")(" + *v + ");");
      close();
      start = end;
    }
    return result;
  }

  if (base == "constant_pad_nd") {
    // pad lists (before, after) pairs from the last dimension backwards.
    if (n.args.empty() || !n.args[0].is_node()) return fail(node, "has no input");
    const auto x = input_shape(n.args[0]);
    const std::vector<std::int64_t> pad = ints_at(n, 1);
    std::string fill = "0";
    if (n.args.size() > 2) {
      auto f = operand(node, n.args[2], idx);
      if (f) fill = f->expr;
    }
    if (!x) return fail(node, "pads a tensor without annotation");
    Index at = idx;
    at.linear.clear();
    std::string inside = "true";
    for (std::size_t p = 0; p + 1 < pad.size() + 1 && p / 2 < idx.dims.size(); p += 2) {
      const std::size_t d = idx.dims.size() - 1 - p / 2;
      const std::int64_t before = pad[p];
      at.dims[d] = "(" + idx.dims[d] + ") - " + std::to_string(before);
      inside +=
          " && " + at.dims[d] + " >= 0 && " + at.dims[d] + " < " + std::to_string(x->sizes[d]);
    }
    return value_where(n, fill, inside, n.args[0].as_node(), at);
  }

  if (base == "avg_pool2d") return avg_pool_value(node, idx);
  if (base == "max_pool2d_with_indices_backward") return max_pool_backward_value(node, idx);
  if (base == "_low_memory_max_pool_offsets_to_indices") {
    return pool_offsets_to_indices_value(node, idx);
  }
  if (base == "slice_scatter" || base == "select_scatter" || base == "as_strided_scatter" ||
      base == "gather" || base == "repeat") {
    return scatter_value(node, idx);
  }
  return fail(node, "has no CUDA lowering in fxscope's code generator");
}

Result<std::string> ValueEmitter::value_where(const graph::Node& n, const std::string& otherwise,
                                              const std::string& inside, NodeId source,
                                              const Index& at) {
  const std::string t = compute_type(n.meta->dtype);
  const std::string result = fresh("v_" + n.name);
  line(t + " " + result + " = (" + t + ")(" + otherwise + ");");
  open("if (" + inside + ") {");
  auto v = value(source, at);
  if (!v) return v;
  line(result + " = (" + t + ")(" + *v + ");");
  close();
  return result;
}

// Max and average pooling take their input alike: a node annotated with the pooled rank (3 or 4).
Result<ValueEmitter::PoolInput> ValueEmitter::pool_input(NodeId pool, const Index& idx) {
  const graph::Node& p = g_.node(pool);
  if (p.args.empty() || !p.args[0].is_node() || idx.dims.size() < 2) {
    return fail(pool, "needs an input of rank 3 or 4");
  }
  const NodeId x = p.args[0].as_node();
  auto in = shape_of(g_.node(x), hints_);
  if (!in || in->sizes.size() != idx.dims.size()) return fail(pool, "has an unannotated input");
  return PoolInput{x, std::move(*in)};
}

// The key under which POOL's OUTPUT (0: value, 1: offset) at IDX is kept in a scope.
std::string ValueEmitter::pool_key(NodeId pool, std::int64_t output, const Index& idx) {
  std::string key = "pool" + std::to_string(pool) + "@" + std::to_string(output);
  for (const std::string& d : idx.dims) key += d + ",";
  return key;
}

void ValueEmitter::set_pool_result(NodeId pool, const Index& idx, const std::string& max,
                                   const std::string& at) {
  scopes_.back()[pool_key(pool, 0, idx)] = max;
  scopes_.back()[pool_key(pool, 1, idx)] = at;
}

// Max pooling over a 2-d window of the last two dims: the value, and where in the window it was
// (Inductor's offsets: kh * kernel_w + kw) or, for max_pool2d_with_indices, the flat h * W + w.
Result<std::string> ValueEmitter::pool_value(NodeId pool, std::int64_t output, const Index& idx) {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    if (const auto it = s->find(pool_key(pool, output, idx)); it != s->end()) return it->second;
  }
  auto input = pool_input(pool, idx);
  if (!input) return input.error();
  const NodeId x = input->x;
  const Shape& in = input->shape;
  const auto w = max_pool_window(g_.node(pool));
  if (!w) return fail(pool, "has no kernel size");
  const std::size_t r = idx.dims.size();
  const std::string m = fresh("v_pool_max");
  const std::string at = fresh("v_pool_at");
  const WindowNames n = window_names();
  line("float " + m + " = -FX_INF;");
  line("long long " + at + " = 0;");
  line("#pragma unroll");
  open("for (int " + n.kh + " = 0; " + n.kh + " < " + std::to_string(w->kh) + "; ++" + n.kh +
       ") {");
  line("#pragma unroll");
  open("for (int " + n.kw + " = 0; " + n.kw + " < " + std::to_string(w->kw) + "; ++" + n.kw +
       ") {");
  line("const int " + n.ih + " = (" + idx.dims[r - 2] + ") * " + std::to_string(w->sh) + " - " +
       std::to_string(w->ph) + " + " + n.kh + " * " + std::to_string(w->dh) + ";");
  line("const int " + n.iw + " = (" + idx.dims[r - 1] + ") * " + std::to_string(w->sw) + " - " +
       std::to_string(w->pw) + " + " + n.kw + " * " + std::to_string(w->dw) + ";");
  auto read = window_value(x, idx, in.sizes, n);
  if (!read) return read;
  const std::string v = fresh("v_pool_in");
  line("const float " + v + " = " + n.inside + " ? (float)(" + *read + ") : -FX_INF;");
  line(pool_update(v, m, at, *w, in.sizes[r - 1], n));
  close();
  close();
  set_pool_result(pool, idx, m, at);
  return output == 0 ? m : at;
}

// The statement that takes V into the running max M and its offset AT (the window's variables N
// in scope): a NaN, once met, stays (with the last NaN's offset), as in PyTorch's kernel.
std::string pool_update(const std::string& v, const std::string& m, const std::string& at,
                        const PoolWindow& w, std::int64_t in_width, const WindowNames& n) {
  return "if (" + v + " > " + m + " || " + v + " != " + v + ") { " + m + " = " + v + "; " + at +
         " = " +
         (w.flat_indices ? n.ih + " * " + std::to_string(in_width) + " + " + n.iw
                         : n.kh + " * " + std::to_string(w.kw) + " + " + n.kw) +
         "; }";
}

WindowNames ValueEmitter::window_names() {
  return {fresh("kh"), fresh("kw"), fresh("ih"), fresh("iw"), fresh("inside")};
}

// Max and average pooling read their window alike: X at (ih, iw) in the pooled element's other
// dims, where `inside` says whether that position is in the image or in the padding. A padding
// position reads the image's corner instead and its value is discarded by the caller: no branch
// around the read, so the window's reads are all in flight at once. (Skipped with `continue`,
// each read and its use sat in a branch of its own: ResNet-50's stem max-pool, 3.2 MB, took
// 5.4 us against 2.2 us for a copy of its bytes.)
Result<std::string> ValueEmitter::window_value(NodeId x, const Index& idx,
                                               const std::vector<std::int64_t>& in_sizes,
                                               const WindowNames& n) {
  const std::size_t r = idx.dims.size();
  line("const bool " + n.inside + " = " + n.ih + " >= 0 && " + n.ih + " < " +
       std::to_string(in_sizes[r - 2]) + " && " + n.iw + " >= 0 && " + n.iw + " < " +
       std::to_string(in_sizes[r - 1]) + ";");
  Index xi = idx;
  xi.linear.clear();
  xi.dims[r - 2] = "(" + n.inside + " ? " + n.ih + " : 0)";
  xi.dims[r - 1] = "(" + n.inside + " ? " + n.iw + " : 0)";
  return value(x, xi);
}

// avg_pool2d(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override).
Result<std::string> ValueEmitter::avg_pool_value(NodeId node, const Index& idx) {
  const graph::Node& p = g_.node(node);
  auto input = pool_input(node, idx);
  if (!input) return input.error();
  const NodeId x = input->x;
  const Shape& in = input->shape;
  const std::vector<std::int64_t> kernel = ints_at(p, 1);
  if (kernel.empty()) return fail(node, "has no kernel size");
  std::vector<std::int64_t> stride = ints_at(p, 2);
  if (stride.empty()) stride = kernel;
  std::vector<std::int64_t> pad = ints_at(p, 3);
  if (pad.empty()) pad = {0};
  const auto pick = [](const std::vector<std::int64_t>& v, std::size_t i) {
    return v[std::min(i, v.size() - 1)];
  };
  const bool include_pad =
      p.args.size() <= 5 || p.args[5].kind() != Argument::Kind::boolean || p.args[5].as_bool();
  const std::size_t r = idx.dims.size();
  const std::string s = fresh("v_pool_sum");
  const std::string c = fresh("v_pool_count");
  line("float " + s + " = 0.0f;");
  line("int " + c + " = 0;");
  const std::int64_t kh = pick(kernel, 0);
  const std::int64_t kw = pick(kernel, 1);
  const WindowNames n = window_names();
  line("#pragma unroll");
  open("for (int " + n.kh + " = 0; " + n.kh + " < " + std::to_string(kh) + "; ++" + n.kh + ") {");
  line("#pragma unroll");
  open("for (int " + n.kw + " = 0; " + n.kw + " < " + std::to_string(kw) + "; ++" + n.kw + ") {");
  line("const int " + n.ih + " = (" + idx.dims[r - 2] + ") * " + std::to_string(pick(stride, 0)) +
       " - " + std::to_string(pick(pad, 0)) + " + " + n.kh + ";");
  line("const int " + n.iw + " = (" + idx.dims[r - 1] + ") * " + std::to_string(pick(stride, 1)) +
       " - " + std::to_string(pick(pad, 1)) + " + " + n.kw + ";");
  auto v = window_value(x, idx, in.sizes, n);
  if (!v) return v;
  line(s + " += " + n.inside + " ? (float)(" + *v + ") : 0.0f;");
  line(c + " += " + n.inside + " ? 1 : 0;");
  close();
  close();
  const std::string divisor = include_pad ? std::to_string(kh * kw) + ".0f" : "(float)" + c;
  return declare("float", p.name, s + " / " + divisor);
}

// The flat h * W + w of the input element each window's offset (kh * kernel_w + kw) points at:
// args (offsets, kernel, input size, stride, padding, dilation), as Inductor's prims define it.
Result<std::string> ValueEmitter::pool_offsets_to_indices_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (n.args.empty() || !n.args[0].is_node() || idx.dims.size() < 2) {
    return fail(node, "needs offsets of rank 3 or 4");
  }
  const std::vector<std::int64_t> kernel = ints_at(n, 1);
  const std::vector<std::int64_t> input = ints_at(n, 2);
  const std::vector<std::int64_t> stride = ints_at(n, 3);
  const std::vector<std::int64_t> pad = ints_at(n, 4);
  const std::vector<std::int64_t> dil = ints_at(n, 5);
  if (kernel.size() != 2 || input.size() != 2 || stride.size() != 2 || pad.size() != 2 ||
      dil.size() != 2) {
    return fail(node, "needs a 2-d kernel, input size, stride, padding and dilation");
  }
  auto off = value(n.args[0].as_node(), idx);
  if (!off) return off;
  const std::size_t r = idx.dims.size();
  const std::string o = "(long long)(" + *off + ")";
  const std::string ih = "((long long)(" + idx.dims[r - 2] + ") * " + std::to_string(stride[0]) +
                         " - " + std::to_string(pad[0]) + " + (" + o + " / " +
                         std::to_string(kernel[1]) + ") * " + std::to_string(dil[0]) + ")";
  const std::string iw = "((long long)(" + idx.dims[r - 1] + ") * " + std::to_string(stride[1]) +
                         " - " + std::to_string(pad[1]) + " + (" + o + " % " +
                         std::to_string(kernel[1]) + ") * " + std::to_string(dil[1]) + ")";
  return declare("long long", n.name, ih + " * " + std::to_string(input[1]) + " + " + iw);
}

// Opens two nested loops over the last two dims, from BOUNDS[d][0] up to BOUNDS[d][1] (values
// declared in the kernel), with fresh variables named after H and W; the caller closes both.
// Returns IDX with its last two dims at the loops' variables.
Index ValueEmitter::open_plane_loops(const Index& idx, const std::string (&bounds)[2][2],
                                     const std::string& h, const std::string& w) {
  const std::size_t r = idx.dims.size();
  Index at = idx;
  at.linear.clear();
  const std::string names[2] = {fresh(h), fresh(w)};
  for (std::size_t d = 0; d < 2; ++d) {
    open("for (long long " + names[d] + " = " + bounds[d][0] + "; " + names[d] + " < " +
         bounds[d][1] + "; ++" + names[d] + ") {");
    at.dims[r - 2 + d] = names[d];
  }
  return at;
}

// An input element's gradient: the sum of the output gradients of every window whose maximum it
// was (its flat h * W + w among the indices), over the windows that can hold it, as ATen's
// max_pool2d_with_indices_backward kernel walks them. Args (grad_output, self, kernel, stride,
// padding, dilation, ceil_mode, indices).
Result<std::string> ValueEmitter::max_pool_backward_value(NodeId node, const Index& idx) {
  const graph::Node& n = g_.node(node);
  if (n.args.size() < 8 || !n.args[0].is_node() || !n.args[7].is_node() || idx.dims.size() < 2) {
    return fail(node, "needs the output's gradient, the input, the window and the indices");
  }
  const NodeId grad = n.args[0].as_node();
  const NodeId indices = n.args[7].as_node();
  const auto out = shape_of(g_.node(grad), hints_);
  const auto in = shape_of(n, hints_);
  if (!out || !in || out->sizes.size() != idx.dims.size()) {
    return fail(node, "has an unannotated gradient");
  }
  const std::vector<std::int64_t> kernel = ints_at(n, 2);
  std::vector<std::int64_t> stride = ints_at(n, 3);
  if (stride.empty()) stride = kernel;
  std::vector<std::int64_t> pad = ints_at(n, 4);
  if (pad.empty()) pad = {0};
  std::vector<std::int64_t> dil = ints_at(n, 5);
  if (dil.empty()) dil = {1};
  if (kernel.empty()) return fail(node, "has no kernel size");
  const auto pick = [](const std::vector<std::int64_t>& v, std::size_t i) {
    return v[std::min(i, v.size() - 1)];
  };
  const std::size_t r = idx.dims.size();
  const std::int64_t w_in = in->sizes[r - 1];
  const std::string acc = fresh("v_pool_grad");
  line("float " + acc + " = 0.0f;");
  std::string bounds[2][2];  // [dim][start, end] of the windows holding the element
  for (std::size_t d = 0; d < 2; ++d) {
    const std::string pos = "(long long)(" + idx.dims[r - 2 + d] + ")";
    const std::string k = std::to_string(pick(kernel, d));
    const std::string s = std::to_string(pick(stride, d));
    const std::string p = std::to_string(pick(pad, d));
    const std::string reach = "((" + k + " - 1) * " + std::to_string(pick(dil, d)) + " + 1)";
    bounds[d][0] = declare("long long", d ? "pw_start" : "ph_start",
                           "(" + pos + " + " + p + " < " + reach + ") ? 0 : (" + pos + " + " + p +
                               " - " + reach + ") / " + s + " + 1");
    const std::string last = declare("long long", d ? "pw_last" : "ph_last",
                                     "(" + pos + " + " + p + ") / " + s + " + 1");
    const std::string size = std::to_string(out->sizes[r - 2 + d]) + "LL";
    bounds[d][1] = declare("long long", d ? "pw_end" : "ph_end",
                           last + " < " + size + " ? " + last + " : " + size);
  }
  const std::string here = "((long long)(" + idx.dims[r - 2] + ") * " + std::to_string(w_in) +
                           " + " + idx.dims[r - 1] + ")";
  const Index at = open_plane_loops(idx, bounds, "oh", "ow");
  auto where = value(indices, at);
  if (!where) return where;
  auto g = value(grad, at);
  if (!g) return g;
  line("if ((long long)(" + *where + ") == " + here + ") " + acc + " += (float)(" + *g + ");");
  close();
  close();
  return declare("float", n.name, acc);
}

// Each output element averages its window: rows from o * IN / OUT up to ceil((o + 1) * IN /
// OUT), the same for columns, as ATen's adaptive_avg_pool2d (start_index / end_index).
Result<std::string> ValueEmitter::adaptive_pool_value(NodeId node, const Index& idx) {
  const auto w = ops::adaptive_window(g_, node, hints_);
  if (!w) return fail(node, "has no annotated input of rank 3 or 4");
  const graph::Node& n = g_.node(node);
  const NodeId x = n.args[0].as_node();
  const std::size_t r = idx.dims.size();
  if (r < 2) return fail(node, "is indexed without its plane");
  std::string bounds[2][2];
  const std::int64_t in[2] = {w->in_h, w->in_w};
  const std::int64_t out[2] = {w->out_h, w->out_w};
  for (std::size_t d = 0; d < 2; ++d) {
    const std::string o = "(long long)(" + idx.dims[r - 2 + d] + ")";
    const std::string I = std::to_string(in[d]);
    const std::string O = std::to_string(out[d]);
    bounds[d][0] = declare("long long", d ? "aw_start" : "ah_start", o + " * " + I + " / " + O);
    bounds[d][1] = declare("long long", d ? "aw_end" : "ah_end",
                           "((" + o + " + 1) * " + I + " + " + O + " - 1) / " + O);
  }
  const std::string sum = fresh("v_adaptive_sum");
  line("float " + sum + " = 0.0f;");
  const Index at = open_plane_loops(idx, bounds, "ih", "iw");
  auto v = value(x, at);
  if (!v) return v;
  line(sum + " += (float)(" + *v + ");");
  close();
  close();
  return declare("float", n.name,
                 sum + " / (float)((" + bounds[0][1] + " - " + bounds[0][0] + ") * (" +
                     bounds[1][1] + " - " + bounds[1][0] + "))");
}

}  // namespace fxscope::codegen
