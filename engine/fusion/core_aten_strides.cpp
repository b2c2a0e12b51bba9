// The sizes, strides and arguments the decompositions read and write: Dim arithmetic, PyTorch's
// computeStride for a view, and strides for the annotations an exported program prints
// without them.

#include "core_aten_decomposer.h"

#include <algorithm>

#include "fxscope/guards/dtype.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion::core_aten {

std::string factor(const Dim& d) {
  if (!d.is_symbolic()) return std::to_string(d.value);
  return d.expr.find_first_of("+-/%") == std::string::npos ? d.expr : "(" + d.expr + ")";
}

Dim mul(const Dim& a, const Dim& b) {
  if (!a.is_symbolic() && !b.is_symbolic()) return Dim::constant(a.value * b.value);
  if (!a.is_symbolic() && a.value == 1) return b;
  if (!b.is_symbolic() && b.value == 1) return a;
  if ((!a.is_symbolic() && a.value == 0) || (!b.is_symbolic() && b.value == 0)) {
    return Dim::constant(0);
  }
  return Dim::symbolic(factor(a) + "*" + factor(b));
}

Dim product(const Dims& sizes, std::size_t from, std::size_t to) {
  Dim p = Dim::constant(1);
  for (std::size_t i = from; i < to && i < sizes.size(); ++i) p = mul(p, sizes[i]);
  return p;
}

Dims dense(const Dims& sizes) {
  Dims strides(sizes.size(), Dim::constant(1));
  for (std::size_t i = sizes.size(); i-- > 1;) strides[i - 1] = mul(strides[i], sizes[i]);
  return strides;
}

bool is_one(const Dim& d) {
  return !d.is_symbolic() && d.value == 1;
}

// Whether M's strides are the dense row-major ones (a dimension of size 1 may have any stride).
bool row_major(const TensorMeta& m) {
  if (m.strides.size() != m.sizes.size()) return false;
  const Dims want = dense(m.sizes);
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (!is_one(m.sizes[i]) && m.strides[i] != want[i]) return false;
  }
  return true;
}

std::optional<std::size_t> dim_index(std::int64_t dim, std::size_t rank) {
  const std::int64_t d = dim < 0 ? dim + static_cast<std::int64_t>(rank) : dim;
  if (d < 0 || d >= static_cast<std::int64_t>(rank)) return std::nullopt;
  return static_cast<std::size_t>(d);
}

// Positional argument I or keyword NAME; nullptr where the call leaves it to its default.
const Argument* arg_of(const graph::Node& n, std::size_t i, std::string_view name) {
  if (i < n.args.size()) return &n.args[i];
  for (const auto& [key, value] : n.kwargs) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::optional<std::int64_t> int_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::integer) return a->as_int();
  return std::nullopt;
}

std::optional<double> number_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::integer) return static_cast<double>(a->as_int());
  if (a && a->kind() == Argument::Kind::floating) return a->as_float();
  return std::nullopt;
}

std::optional<bool> bool_of(const Argument* a) {
  if (a && a->kind() == Argument::Kind::boolean) return a->as_bool();
  return std::nullopt;
}

// The integers of a list argument, or one integer repeated COUNT times (conv2d's stride=1).
std::optional<std::vector<std::int64_t>> ints_of(const Argument* a, std::size_t count) {
  if (!a) return std::nullopt;
  if (a->kind() == Argument::Kind::integer) return std::vector<std::int64_t>(count, a->as_int());
  std::vector<std::int64_t> out;
  for (const Argument& item : a->items()) {
    if (item.kind() != Argument::Kind::integer) return std::nullopt;
    out.push_back(item.as_int());
  }
  if (out.size() == 1 && count > 1) out.assign(count, out.front());
  if (out.size() != count) return std::nullopt;
  return out;
}

Argument int_list(const std::vector<std::int64_t>& values) {
  std::vector<Argument> items;
  for (const std::int64_t v : values) items.push_back(Argument::integer(v));
  return Argument::list(std::move(items));
}

// A size as an FX argument: a number, a symbol's name, or an expression as written.
Argument size_argument(const Dim& d) {
  if (!d.is_symbolic()) return Argument::integer(d.value);
  const bool name =
      d.expr.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
      std::string::npos;
  return name ? Argument::symbol(d.expr) : Argument::raw(d.expr);
}

Argument size_list(const Dims& sizes) {
  std::vector<Argument> items;
  for (const Dim& d : sizes) items.push_back(size_argument(d));
  return Argument::list(std::move(items));
}

// torch.float32 for f32: a dtype argument as FX prints it.
Argument dtype_symbol(const std::string& short_name) {
  const auto d = guards::parse_dtype(short_name);
  return Argument::symbol(std::string(d ? d->torch_name : "torch.float32"));
}

// F.interpolate's overloads of the training IR (CompositeImplicit: the core ATen IR has only
// the sized ones, which Dynamo's graphs and Inductor keep).
bool upsample_vec(std::string_view target) {
  return target == "torch.ops.aten.upsample_nearest2d.vec" ||
         target == "torch.ops.aten.upsample_bilinear2d.vec";
}

bool half_precision(const std::string& dtype) {
  return dtype == "bf16" || dtype == "f16";
}

// The strides of a view of SIZES over an input of OLD_SIZES and OLD_STRIDES, as PyTorch's
// computeStride finds them (each run of the input's dims contiguous in memory maps onto whole
// dims of the view); nullopt where the view cannot be laid over the input (reshape copies).
// Sizes are compared at the hints; the strides are built from the input's as expressions.
std::optional<Dims> Decomposer::view_of(const Dims& old_sizes, const Dims& old_strides,
                                        const Dims& sizes) const {
  const auto at = [&](const Dim& d) { return ops::eval_dim(d, hints_); };
  if (old_sizes.empty() || old_strides.size() != old_sizes.size()) return std::nullopt;
  Dims out(sizes.size(), Dim::constant(1));
  auto view_d = static_cast<std::int64_t>(sizes.size()) - 1;
  Dim chunk_base = old_strides.back();
  Dim tensor_numel = Dim::constant(1);
  Dim view_numel = Dim::constant(1);
  for (auto d = static_cast<std::int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    const auto ud = static_cast<std::size_t>(d);
    tensor_numel = mul(tensor_numel, old_sizes[ud]);
    if (d == 0 || (at(old_sizes[ud - 1]) != 1 &&
                   at(old_strides[ud - 1]) != at(tensor_numel) * at(chunk_base))) {
      while (view_d >= 0 && (at(view_numel) < at(tensor_numel) ||
                             at(sizes[static_cast<std::size_t>(view_d)]) == 1)) {
        out[static_cast<std::size_t>(view_d)] = mul(view_numel, chunk_base);
        view_numel = mul(view_numel, sizes[static_cast<std::size_t>(view_d)]);
        --view_d;
      }
      if (at(view_numel) != at(tensor_numel)) return std::nullopt;
      if (d > 0) {
        chunk_base = old_strides[ud - 1];
        tensor_numel = Dim::constant(1);
        view_numel = Dim::constant(1);
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// Strides for node ID where its annotation printed none: a view's as PyTorch computes them
// from its input's, any other value's dense.
void Decomposer::fill_strides(NodeId id) {
  graph::Node& n = out_.graph.node(id);
  if (!n.meta || n.meta->is_sym_scalar() || !n.meta->strides.empty() || n.meta->sizes.empty()) {
    return;
  }
  std::optional<Dims> strides = view_strides(n);
  if (!strides || strides->size() != n.meta->rank()) strides = dense(n.meta->sizes);
  n.meta->strides = std::move(*strides);
  ++out_.strides_inferred;
}

std::optional<Dims> Decomposer::view_strides(const graph::Node& n) const {
  if (!n.is_op() || n.args.empty() || !n.args[0].is_node()) return std::nullopt;
  const graph::Node& src = out_.graph.node(n.args[0].as_node());
  const std::string_view base = ops::op_base_name(n.target);
  if (n.target == "operator.getitem") {
    // A piece of a split keeps its input's strides; one of unbind drops the unbound dim.
    const std::string_view of = ops::op_base_name(src.target);
    if (src.args.empty() || !src.args[0].is_node()) return std::nullopt;
    const TensorMeta* whole = meta(src.args[0].as_node());
    if (!whole || whole->strides.size() != whole->rank()) return std::nullopt;
    if (of == "split" || of == "split_with_sizes") return whole->strides;
    if (of == "unbind") {
      const auto d = dim_index(src.args.size() > 1 ? src.args[1].as_int() : 0, whole->rank());
      if (!d) return std::nullopt;
      Dims s = whole->strides;
      s.erase(s.begin() + static_cast<std::ptrdiff_t>(*d));
      return s;
    }
    return std::nullopt;
  }
  const TensorMeta* in = meta(n.args[0].as_node());
  if (!in || in->strides.size() != in->rank()) return std::nullopt;
  const Dims& s = in->strides;
  const auto int_arg = [&](std::size_t i, std::int64_t fallback) {
    return i < n.args.size() && n.args[i].kind() == Argument::Kind::integer ? n.args[i].as_int()
                                                                            : fallback;
  };
  if (base == "permute" && n.args.size() > 1) {
    Dims out;
    for (const Argument& p : n.args[1].items()) {
      const auto d = dim_index(p.as_int(), in->rank());
      if (!d) return std::nullopt;
      out.push_back(s[*d]);
    }
    return out;
  }
  if (base == "transpose" || base == "t") {
    const auto d0 = dim_index(int_arg(1, 0), in->rank());
    const auto d1 = dim_index(int_arg(2, 1), in->rank());
    if (!d0 || !d1) return std::nullopt;
    Dims out = s;
    std::swap(out[*d0], out[*d1]);
    return out;
  }
  if (base == "unsqueeze") {
    const auto d = dim_index(int_arg(1, 0), in->rank() + 1);
    if (!d) return std::nullopt;
    Dims out = s;
    const Dim at = *d < in->rank() ? mul(in->sizes[*d], s[*d]) : Dim::constant(1);
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*d), at);
    return out;
  }
  if (base == "squeeze") {
    // squeeze.dim / squeeze.dims drop the named dims of size 1, squeeze.default every one.
    std::vector<bool> dropped(in->rank(), false);
    const bool named = n.args.size() > 1;
    std::vector<std::int64_t> dims;
    if (named) {
      if (n.args[1].kind() == Argument::Kind::integer) dims.push_back(n.args[1].as_int());
      for (const Argument& d : n.args[1].items()) dims.push_back(d.as_int());
    }
    for (std::size_t i = 0; i < in->rank(); ++i) dropped[i] = !named && is_one(in->sizes[i]);
    for (const std::int64_t d : dims) {
      const auto at = dim_index(d, in->rank());
      if (at && is_one(in->sizes[*at])) dropped[*at] = true;
    }
    Dims out;
    for (std::size_t i = 0; i < in->rank(); ++i) {
      if (!dropped[i]) out.push_back(s[i]);
    }
    return out;
  }
  if (base == "select") {
    const auto d = dim_index(int_arg(1, 0), in->rank());
    if (!d) return std::nullopt;
    Dims out = s;
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(*d));
    return out;
  }
  if (base == "slice") {
    const auto d = dim_index(int_arg(1, 0), in->rank());
    if (!d) return std::nullopt;
    Dims out = s;
    out[*d] = mul(out[*d], Dim::constant(int_arg(4, 1)));
    return out;
  }
  if (base == "expand") {
    const std::size_t lead = n.meta->rank() - std::min(n.meta->rank(), in->rank());
    Dims out(lead, Dim::constant(0));
    for (std::size_t i = 0; i < in->rank(); ++i) {
      const bool stretched = is_one(in->sizes[i]) && !is_one(n.meta->sizes[lead + i]);
      out.push_back(stretched ? Dim::constant(0) : s[i]);
    }
    return out;
  }
  if (base == "view" || base == "_unsafe_view" || base == "reshape" || base == "alias" ||
      base == "detach" || base == "flatten" || base == "unflatten") {
    if (in->sizes == n.meta->sizes) return s;
    return view_of(in->sizes, s, n.meta->sizes);
  }
  return std::nullopt;
}

}  // namespace fxscope::fusion::core_aten
