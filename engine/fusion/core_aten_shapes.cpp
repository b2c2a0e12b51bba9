// Reshapes, pooling, padding, dtype casts, chunk and F.interpolate's upsampling as core ATen ops.

#include "core_aten_decomposer.h"

#include <array>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion::core_aten {

std::optional<NodeId> Decomposer::flatten(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  if (!meta(x)) {
    why = "expected an annotated input";
    return std::nullopt;
  }
  return reshape(n, *x, n.meta->sizes, n.name);
}

// unflatten splits one dim: always a view, its new dims strided within the split one.
std::optional<NodeId> Decomposer::unflatten(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const auto dim = int_of(arg_of(n, 1, "dim"));
  const std::size_t parts = n.meta->rank() + 1 - (xm ? xm->rank() : 0);
  const auto d = xm && dim ? dim_index(*dim, xm->rank()) : std::nullopt;
  if (!xm || !d || xm->strides.size() != xm->rank() || n.meta->rank() < xm->rank()) {
    why = "expected an annotated input and a dim within it";
    return std::nullopt;
  }
  Dims strides;
  for (std::size_t i = 0; i < *d; ++i) strides.push_back(xm->strides[i]);
  for (std::size_t j = 0; j < parts; ++j) {
    strides.push_back(mul(xm->strides[*d], product(n.meta->sizes, *d + j + 1, *d + parts)));
  }
  for (std::size_t i = *d + 1; i < xm->rank(); ++i) strides.push_back(xm->strides[i]);
  return emit(n, n.name, "view.default", {Argument::node(*x), size_list(n.meta->sizes)},
              value(*n.meta, n.meta->sizes, strides));
}

// chunk(x, chunks, dim) -> split(x, ceil(size / chunks), dim); its getitems read the split.
std::optional<NodeId> Decomposer::chunk(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const auto chunks = int_of(arg_of(n, 1, "chunks"));
  const auto dim = arg_of(n, 2, "dim") ? int_of(arg_of(n, 2, "dim")) : 0;
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const auto d = xm && dim ? dim_index(*dim, xm->rank()) : std::nullopt;
  if (!d || !chunks || *chunks <= 0 || xm->sizes[*d].is_symbolic()) {
    why = "expected an annotated input with a static size along dim, and chunks";
    return std::nullopt;
  }
  const std::int64_t size = xm->sizes[*d].value;
  const std::int64_t split = (size + *chunks - 1) / *chunks;
  return emit(n, n.name, "split.Tensor",
              {Argument::node(*x), Argument::integer(split),
               Argument::integer(static_cast<std::int64_t>(*d))},
              std::nullopt);
}

// max_pool2d / max_pool3d -> max_pool*_with_indices's values, the same arguments.
std::optional<NodeId> Decomposer::max_pool(const graph::Node& n, std::string& why) {
  if (n.args.empty() || !n.args[0].is_node()) {
    why = "expected an input";
    return std::nullopt;
  }
  std::vector<Argument> args;
  for (const Argument& a : n.args) args.push_back(remap(a));
  std::vector<graph::KeywordArgument> kwargs;
  for (const auto& [k, v] : n.kwargs) kwargs.emplace_back(k, remap(v));
  const std::string op = std::string(ops::op_base_name(n.target)) + "_with_indices.default";
  const NodeId pool =
      emit(n, fresh(n.name + "_with_indices"), op, std::move(args), std::nullopt, kwargs);
  return getitem(n, pool, 0, n.name, value(*n.meta, n.meta->sizes));
}

// contiguous is its input where that is row-major, else a copy that is.
std::optional<NodeId> Decomposer::contiguous(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm) {
    why = "expected an annotated input";
    return std::nullopt;
  }
  const Argument* format = arg_of(n, 1, "memory_format");
  if (format && !format->is_none() && format->text() != "torch.contiguous_format") {
    why = "a memory format other than torch.contiguous_format";
    return std::nullopt;
  }
  if (row_major(*xm)) return *x;
  return emit(n, n.name, "clone.default", {Argument::node(*x)}, value(*n.meta, n.meta->sizes),
              {{"memory_format", Argument::symbol("torch.contiguous_format")}});
}

// type_as(x, other) and to(x, dtype, ...): a convert to the other dtype; its input where the
// dtype does not change (and no copy is asked for).
std::optional<NodeId> Decomposer::to_dtype(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm) {
    why = "expected an annotated input";
    return std::nullopt;
  }
  bool copy = false;
  for (const auto& [key, v] : n.kwargs) {
    if (key == "copy" && v.kind() == Argument::Kind::boolean) copy = v.as_bool();
  }
  if (n.meta->dtype == xm->dtype && !copy) return *x;
  return convert(n, *x, n.meta->dtype, n.name);
}

// pad(x, pad, 'constant', value) -> constant_pad_nd; the other modes are kept.
std::optional<NodeId> Decomposer::pad(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const Argument* widths = arg_of(n, 1, "pad");
  const Argument* mode = arg_of(n, 2, "mode");
  const Argument* fill = arg_of(n, 3, "value");
  if (!x || !widths) {
    why = "expected an input and the pad widths";
    return std::nullopt;
  }
  if (mode && mode->kind() == Argument::Kind::string && mode->text() != "constant") {
    why = "pad mode '" + mode->text() + "' (only 'constant' decomposes to constant_pad_nd)";
    return std::nullopt;
  }
  const Argument value_arg = fill && !fill->is_none() ? remap(*fill) : Argument::floating(0.0);
  return emit(n, n.name, "constant_pad_nd.default", {Argument::node(*x), remap(*widths), value_arg},
              value(*n.meta, n.meta->sizes));
}

// upsample_nearest2d.vec / upsample_bilinear2d.vec (F.interpolate in the training IR): the
// gathers Inductor's decompositions give (_upsample_nearest, _upsample_linear): per spatial dim
// a source index from iota(out) (floor(i * scale) for nearest; scale * (i + 0.5) - 0.5 clamped
// at 0, or scale * i with align_corners, for bilinear), _unsafe_index of the input at them, and
// for bilinear the four corners blended by the fractions, W first. SCALE is in / out, or
// 1 / scale_factor where one is given.
std::optional<NodeId> Decomposer::upsample(const graph::Node& n, bool bilinear, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm || xm->rank() != 4 || n.meta->rank() != 4) {
    why = "expected an annotated 4-D input and output";
    return std::nullopt;
  }
  const Argument* align_arg = bilinear ? arg_of(n, 2, "align_corners") : nullptr;
  const bool align = align_arg && bool_of(align_arg).value_or(false);
  const Argument* factors = arg_of(n, bilinear ? 3 : 2, "scale_factors");
  std::vector<double> scale_factors;
  if (factors && !factors->is_none()) {
    for (const Argument& f : factors->items()) {
      if (const auto v = number_of(&f)) scale_factors.push_back(*v);
    }
  }
  std::array<NodeId, 2> floor_at{};
  std::array<NodeId, 2> next_at{};
  std::array<NodeId, 2> source_at{};
  for (std::size_t k = 0; k < 2; ++k) {
    const Dim& in = xm->sizes[2 + k];
    const Dim& out = n.meta->sizes[2 + k];
    if (in.is_symbolic() || out.is_symbolic() || out.value <= 0) {
      why = "its spatial sizes are symbolic";
      return std::nullopt;
    }
    double scale = static_cast<double>(in.value) / static_cast<double>(out.value);
    if (k < scale_factors.size() && scale_factors[k] > 0) scale = 1.0 / scale_factors[k];
    if (bilinear && align) {
      scale = out.value > 1 ? static_cast<double>(in.value - 1) / static_cast<double>(out.value - 1)
                            : 0.0;
    }
    const std::string tag = k == 0 ? "_h" : "_w";
    TensorMeta f32;
    f32.dtype = "f32";
    f32.device = xm->device;
    const Dims line = {out};
    const NodeId iota = emit(n, fresh(n.name + tag + "_iota"), "prims.iota.default",
                             {Argument::integer(out.value)}, value(index_meta(xm->device), line),
                             {{"start", Argument::integer(0)},
                              {"step", Argument::integer(1)},
                              {"dtype", Argument::symbol("torch.int64")},
                              {"device", Argument::symbol("device(type='cuda', index=0)")},
                              {"requires_grad", Argument::boolean(false)}});
    NodeId src = convert(n, iota, "f32", fresh(n.name + tag + "_float"));
    if (bilinear && !align) {
      src = pointwise(n, fresh(n.name + tag + "_add"), "add.Tensor",
                      {Argument::node(src), Argument::floating(0.5)}, f32, line);
    }
    src = pointwise(n, fresh(n.name + tag + "_mul"), "mul.Tensor",
                    {Argument::node(src), Argument::floating(scale)}, f32, line);
    if (bilinear && !align) {
      src = pointwise(n, fresh(n.name + tag + "_sub"), "sub.Tensor",
                      {Argument::node(src), Argument::floating(0.5)}, f32, line);
      src = pointwise(n, fresh(n.name + tag + "_clamp"), "clamp_min.default",
                      {Argument::node(src), Argument::floating(0.0)}, f32, line);
    }
    // H's index is a column (out, 1) against W's row (out): they broadcast to (out_h, out_w).
    const Dims shaped = k == 0 ? Dims{out, Dim::constant(1)} : line;
    src = emit(n, fresh(n.name + tag + "_view"), "view.default",
               {Argument::node(src), size_list(shaped)}, value(f32, shaped));
    source_at[k] = src;
    NodeId idx = convert(n, src, "i64", fresh(n.name + tag + "_index"));
    if (!bilinear) {
      idx = pointwise(n, fresh(n.name + tag + "_last"), "clamp_max.default",
                      {Argument::node(idx), Argument::integer(in.value - 1)},
                      index_meta(xm->device), shaped);
    }
    floor_at[k] = idx;
    if (bilinear) {
      const NodeId plus =
          pointwise(n, fresh(n.name + tag + "_next"), "add.Tensor",
                    {Argument::node(idx), Argument::integer(1)}, index_meta(xm->device), shaped);
      next_at[k] = pointwise(n, fresh(n.name + tag + "_next_clamp"), "clamp_max.default",
                             {Argument::node(plus), Argument::integer(in.value - 1)},
                             index_meta(xm->device), shaped);
    }
  }
  const auto gather = [&](NodeId h, NodeId w, std::string name) {
    return emit(n, std::move(name), "_unsafe_index.Tensor",
                {Argument::node(*x),
                 Argument::list({Argument(), Argument(), Argument::node(h), Argument::node(w)})},
                value(*n.meta, n.meta->sizes));
  };
  if (!bilinear) return gather(floor_at[0], floor_at[1], n.name);
  const NodeId c00 = gather(floor_at[0], floor_at[1], fresh(n.name + "_00"));
  const NodeId c01 = gather(floor_at[0], next_at[1], fresh(n.name + "_01"));
  const NodeId c10 = gather(next_at[0], floor_at[1], fresh(n.name + "_10"));
  const NodeId c11 = gather(next_at[0], next_at[1], fresh(n.name + "_11"));
  const auto fraction = [&](std::size_t k) {
    const TensorMeta src = *meta(source_at[k]);
    const NodeId d =
        pointwise(n, fresh(n.name + "_frac"), "sub.Tensor",
                  {Argument::node(source_at[k]), Argument::node(floor_at[k])}, src, src.sizes);
    const NodeId lo = pointwise(n, fresh(n.name + "_frac"), "clamp_min.default",
                                {Argument::node(d), Argument::floating(0.0)}, src, src.sizes);
    const NodeId f = pointwise(n, fresh(n.name + "_frac"), "clamp_max.default",
                               {Argument::node(lo), Argument::floating(1.0)}, src, src.sizes);
    return in_dtype(n, f, n.meta->dtype);
  };
  const auto lerp = [&](NodeId a, NodeId b, NodeId t, std::string name) {
    const TensorMeta full = *n.meta;
    const NodeId diff = pointwise(n, fresh(n.name + "_diff"), "sub.Tensor",
                                  {Argument::node(b), Argument::node(a)}, full, full.sizes);
    const NodeId step = pointwise(n, fresh(n.name + "_step"), "mul.Tensor",
                                  {Argument::node(diff), Argument::node(t)}, full, full.sizes);
    return pointwise(n, std::move(name), "add.Tensor", {Argument::node(a), Argument::node(step)},
                     full, full.sizes);
  };
  const NodeId fw = fraction(1);
  const NodeId top = lerp(c00, c01, fw, fresh(n.name + "_top"));
  const NodeId bottom = lerp(c10, c11, fw, fresh(n.name + "_bottom"));
  return lerp(top, bottom, fraction(0), n.name);
}

TensorMeta Decomposer::index_meta(const std::string& device) {
  TensorMeta m;
  m.dtype = "i64";
  m.device = device;
  return m;
}

// reshape: a view where the input's strides allow one, else a row-major copy viewed.
std::optional<NodeId> Decomposer::reshape_op(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "self"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm) {
    why = "expected an annotated input";
    return std::nullopt;
  }
  if (view_of(xm->sizes, xm->strides, n.meta->sizes)) {
    return emit(n, n.name, "view.default", {Argument::node(*x), size_list(n.meta->sizes)},
                value(*n.meta, n.meta->sizes, Dims{}));
  }
  return reshape(n, *x, n.meta->sizes, n.name);
}

}  // namespace fxscope::fusion::core_aten
