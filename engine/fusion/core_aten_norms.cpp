// batch, layer, group and RMS norm as var_mean and pointwise ops (in f32 for bf16/f16 input),
// softmax and dropout, as torch/_decomp gives them.

#include "core_aten_decomposer.h"

#include <tuple>
#include <utility>

namespace fxscope::fusion::core_aten {

// rsqrt(V + EPS): a norm's inverse standard deviation, valued like LIKE at SIZES.
NodeId Decomposer::inverse_root(const graph::Node& n, NodeId v, double eps, const TensorMeta& like,
                                const Dims& sizes) {
  const NodeId ve = pointwise(n, fresh(n.name + "_add"), "add.Tensor",
                              {Argument::node(v), Argument::floating(eps)}, like, sizes);
  return pointwise(n, fresh(n.name + "_rsqrt"), "rsqrt.default", {Argument::node(ve)}, like, sizes);
}

// Y * W + B where W and B (absent or not) broadcast against Y's last dims (layer and RMS norm),
// in COMPUTE, the last op named LAST.
NodeId Decomposer::scale_shift(const graph::Node& n, NodeId y, std::optional<NodeId> w,
                               std::optional<NodeId> b, const std::string& compute,
                               const std::string& last) {
  const TensorMeta full = *meta(y);
  if (w) {
    const NodeId wc = in_dtype(n, *w, compute);
    y = pointwise(n, b ? fresh(n.name + "_mul") : last, "mul.Tensor",
                  {Argument::node(y), Argument::node(wc)}, full, full.sizes);
  }
  if (b) {
    const NodeId bc = in_dtype(n, *b, compute);
    y = pointwise(n, last, "add.Tensor", {Argument::node(y), Argument::node(bc)}, full, full.sizes);
  }
  return y;
}

// (X - MEAN) * RSTD, the last op named LAST.
NodeId Decomposer::normalized(const graph::Node& n, NodeId x, NodeId mean, NodeId rstd,
                              const std::string& last) {
  const TensorMeta xm = *meta(x);
  const NodeId centred = pointwise(n, fresh(n.name + "_sub"), "sub.Tensor",
                                   {Argument::node(x), Argument::node(mean)}, xm, xm.sizes);
  return pointwise(n, last, "mul.Tensor", {Argument::node(centred), Argument::node(rstd)}, xm,
                   xm.sizes);
}

// P (one value per channel) in DTYPE, viewed as CHANNEL ([C, 1, ...]) against an input's dim 1.
NodeId Decomposer::per_channel(const graph::Node& n, NodeId p, const std::string& dtype,
                               const Dims& channel) {
  const NodeId pc = in_dtype(n, p, dtype);
  return emit(n, fresh(n.name + "_view"), "view.default", {Argument::node(pc), size_list(channel)},
              value(*meta(pc), channel));
}

// var_mean(X, DIMS, correction=0, keepdim=True): the variance and the mean, valued as STAT.
std::pair<NodeId, NodeId> Decomposer::var_mean(const graph::Node& n, NodeId x,
                                               const std::vector<std::int64_t>& dims,
                                               const TensorMeta& stat) {
  const NodeId vm = emit(
      n, fresh(n.name + "_var_mean"), "var_mean.correction", {Argument::node(x), int_list(dims)},
      std::nullopt, {{"correction", Argument::integer(0)}, {"keepdim", Argument::boolean(true)}});
  return {getitem(n, vm, 0, fresh(n.name + "_var"), stat),
          getitem(n, vm, 1, fresh(n.name + "_mean"), stat)};
}

// Y * W + B, W and B (one value per channel) viewed as CHANNEL against Y's dim 1; the last op
// is named LAST (Y itself where there are neither).
NodeId Decomposer::affine(const graph::Node& n, NodeId y, std::optional<NodeId> w,
                          std::optional<NodeId> b, const Dims& channel, const std::string& last) {
  const TensorMeta ym = *meta(y);
  if (w) {
    const NodeId wv = per_channel(n, *w, ym.dtype, channel);
    y = pointwise(n, b ? fresh(n.name + "_mul") : last, "mul.Tensor",
                  {Argument::node(y), Argument::node(wv)}, ym, ym.sizes);
  }
  if (b) {
    const NodeId bv = per_channel(n, *b, ym.dtype, channel);
    y = pointwise(n, last, "add.Tensor", {Argument::node(y), Argument::node(bv)}, ym, ym.sizes);
  }
  return y;
}

// batch_norm: (x - mean) * rsqrt(var + eps) * w + b, with the running statistics in eval and
// x's own (var_mean over every dim but the channel, unbiased=False) in training, computed in
// f32 for bf16/f16 input, as Inductor's decomposition of _native_batch_norm_legit does.
std::optional<NodeId> Decomposer::batch_norm(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const auto training = bool_of(arg_of(n, 5, "training"));
  const auto eps = number_of(arg_of(n, 7, "eps"));
  const auto mean = node_of(arg_of(n, 3, "running_mean"));
  const auto var = node_of(arg_of(n, 4, "running_var"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm || xm->rank() < 2 || !training || !eps || (!*training && (!mean || !var))) {
    why =
        "expected an annotated input of rank 2 or more, training and eps (and running "
        "statistics in eval)";
    return std::nullopt;
  }
  const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
  const NodeId xc = in_dtype(n, *x, compute);
  Dims channel(xm->rank() - 1, Dim::constant(1));
  channel[0] = xm->sizes[1];
  NodeId m = 0;
  NodeId v = 0;
  if (*training) {
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < xm->rank(); ++d) {
      if (d != 1) dims.push_back(static_cast<std::int64_t>(d));
    }
    Dims kept(xm->rank(), Dim::constant(1));
    kept[1] = xm->sizes[1];
    std::tie(v, m) = var_mean(n, xc, dims, value(*meta(xc), kept));
  } else {
    m = per_channel(n, *mean, compute, channel);
    v = per_channel(n, *var, compute, channel);
  }
  const TensorMeta stat = *meta(v);
  const NodeId rstd = inverse_root(n, v, *eps, stat, stat.sizes);
  const auto w = node_of(arg_of(n, 1, "weight"));
  const auto b = node_of(arg_of(n, 2, "bias"));
  const std::string last = last_name(n, compute);
  const NodeId y = normalized(n, xc, m, rstd, w || b ? fresh(n.name + "_norm") : last);
  return finish(n, affine(n, y, w, b, channel, last));
}

// layer_norm: var_mean over the normalized (last) dims, (x - mean) * rsqrt(var + eps) * w + b,
// in f32 for bf16/f16 input: the ops Inductor's decomposition of native_layer_norm gives, which
// it fuses into one reduction kernel (fxscope's generator has no fused native_layer_norm).
std::optional<NodeId> Decomposer::layer_norm(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const Argument* shape = arg_of(n, 1, "normalized_shape");
  const auto eps = arg_of(n, 4, "eps") ? number_of(arg_of(n, 4, "eps")) : 1e-5;
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const std::size_t k = shape ? shape->items().size() : 0;
  if (!xm || k == 0 || k > xm->rank() || !eps) {
    why = "expected an annotated input, a normalized shape within it and eps";
    return std::nullopt;
  }
  const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
  const NodeId xc = in_dtype(n, *x, compute);
  const TensorMeta full = *meta(xc);
  Dims kept = full.sizes;
  std::vector<std::int64_t> dims;
  for (std::size_t d = xm->rank() - k; d < xm->rank(); ++d) {
    kept[d] = Dim::constant(1);
    dims.push_back(static_cast<std::int64_t>(d));
  }
  const auto [v, m] = var_mean(n, xc, dims, value(full, kept));
  const NodeId rstd = inverse_root(n, v, *eps, full, kept);
  const auto w = node_of(arg_of(n, 2, "weight"));
  const auto b = node_of(arg_of(n, 3, "bias"));
  const std::string last = last_name(n, compute);
  const NodeId y = normalized(n, xc, m, rstd, w || b ? fresh(n.name + "_norm") : last);
  return finish(n, scale_shift(n, y, w, b, compute, last));
}

// group_norm: x viewed as [N, G, rest], var_mean over rest, normalized, viewed back, then the
// per-channel weight and bias (torch/_decomp's native_group_norm).
std::optional<NodeId> Decomposer::group_norm(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const auto groups = int_of(arg_of(n, 1, "num_groups"));
  const auto eps = arg_of(n, 4, "eps") ? number_of(arg_of(n, 4, "eps")) : 1e-5;
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  if (!xm || xm->rank() < 2 || !groups || *groups <= 0 || !eps || xm->sizes[1].is_symbolic() ||
      xm->sizes[1].value % *groups != 0) {
    why =
        "expected an annotated input of rank 2 or more with a static channel count that "
        "num_groups divides, and eps";
    return std::nullopt;
  }
  const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
  const Dim per_group =
      mul(Dim::constant(xm->sizes[1].value / *groups), product(xm->sizes, 2, xm->rank()));
  const Dims grouped = {xm->sizes[0], Dim::constant(*groups), per_group};
  const NodeId xg = reshape(n, in_dtype(n, *x, compute), grouped, fresh(n.name + "_view"));
  const Dims kept = {xm->sizes[0], Dim::constant(*groups), Dim::constant(1)};
  const TensorMeta stat = value(*meta(xg), kept);
  const auto [v, m] = var_mean(n, xg, {2}, stat);
  const NodeId rstd = inverse_root(n, v, *eps, stat, kept);
  const auto w = node_of(arg_of(n, 2, "weight"));
  const auto b = node_of(arg_of(n, 3, "bias"));
  const std::string last = last_name(n, compute);
  NodeId y = normalized(n, xg, m, rstd, fresh(n.name + "_norm"));
  y = emit(n, w || b ? fresh(n.name + "_view") : last, "view.default",
           {Argument::node(y), size_list(xm->sizes)}, value(*meta(y), xm->sizes));
  Dims channel(xm->rank() - 1, Dim::constant(1));
  channel[0] = xm->sizes[1];
  y = affine(n, y, w, b, channel, last);
  return finish(n, y);
}

// rms_norm(x, shape, w, eps): x * rsqrt(mean(x^2 over the normalized dims) + eps) * w, in f32
// for bf16/f16 input; eps defaults to the input dtype's machine epsilon (torch/_decomp).
std::optional<NodeId> Decomposer::rms_norm(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const Argument* shape = arg_of(n, 1, "normalized_shape");
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const std::size_t k = shape ? shape->items().size() : 0;
  if (!xm || k == 0 || k > xm->rank()) {
    why = "expected an annotated input and a normalized shape within it";
    return std::nullopt;
  }
  const Argument* eps_arg = arg_of(n, 3, "eps");
  const double machine_eps = xm->dtype == "bf16"  ? 0.0078125
                             : xm->dtype == "f16" ? 0.0009765625
                                                  : 1.1920928955078125e-07;
  const double eps =
      eps_arg && !eps_arg->is_none() ? number_of(eps_arg).value_or(machine_eps) : machine_eps;
  const std::string compute = half_precision(xm->dtype) ? "f32" : xm->dtype;
  const NodeId xc = in_dtype(n, *x, compute);
  const TensorMeta full = *meta(xc);
  Dims kept = full.sizes;
  std::vector<std::int64_t> dims;
  for (std::size_t d = xm->rank() - k; d < xm->rank(); ++d) {
    kept[d] = Dim::constant(1);
    dims.push_back(static_cast<std::int64_t>(d));
  }
  const NodeId sq = pointwise(n, fresh(n.name + "_pow"), "pow.Tensor_Scalar",
                              {Argument::node(xc), Argument::integer(2)}, full, full.sizes);
  const NodeId ms =
      emit(n, fresh(n.name + "_mean"), "mean.dim",
           {Argument::node(sq), int_list(dims), Argument::boolean(true)}, value(full, kept));
  const NodeId rstd = inverse_root(n, ms, eps, full, kept);
  const auto w = node_of(arg_of(n, 2, "weight"));
  const std::string last = last_name(n, compute);
  const NodeId y = pointwise(n, w ? fresh(n.name + "_norm") : last, "mul.Tensor",
                             {Argument::node(xc), Argument::node(rstd)}, full, full.sizes);
  return finish(n, scale_shift(n, y, w, std::nullopt, compute, last));
}

// softmax(x, dim, dtype): x converted to DTYPE first where one is given, then _softmax.
std::optional<NodeId> Decomposer::softmax(const graph::Node& n, std::string_view op,
                                          std::string& why) {
  auto x = node_of(arg_of(n, 0, "self"));
  const auto dim = int_of(arg_of(n, 1, "dim"));
  if (!x || !dim || !meta(x)) {
    why = "expected an annotated input and a dim";
    return std::nullopt;
  }
  const Argument* dtype = arg_of(n, 2, "dtype");
  if (dtype && !dtype->is_none()) x = in_dtype(n, *x, n.meta->dtype);
  return emit(n, n.name, op,
              {Argument::node(*x), Argument::integer(*dim), Argument::boolean(false)},
              value(*n.meta, n.meta->sizes));
}

// dropout in eval (or p = 0) is its input; in training native_dropout's first output.
std::optional<NodeId> Decomposer::dropout(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const auto p = number_of(arg_of(n, 1, "p"));
  const auto train = bool_of(arg_of(n, 2, "train"));
  if (!x || !p || !train) {
    why = "expected an input, p and train";
    return std::nullopt;
  }
  if (!*train || *p == 0.0) return *x;
  if (!n.meta) {
    why = "its value has no annotation";
    return std::nullopt;
  }
  const NodeId d =
      emit(n, fresh(n.name + "_native"), "native_dropout.default",
           {Argument::node(*x), Argument::floating(*p), Argument::boolean(true)}, std::nullopt);
  return getitem(n, d, 0, n.name, value(*n.meta, n.meta->sizes));
}

}  // namespace fxscope::fusion::core_aten
