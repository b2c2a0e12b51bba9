// linear, matmul and the convolutions as the library calls Inductor makes of them, and
// scaled_dot_product_attention as the kernel PyTorch's CUDA dispatch picks.

#include "core_aten_decomposer.h"

#include <limits>

#include "fxscope/ops/op_registry.h"

namespace fxscope::fusion::core_aten {

// linear(x, w, b): x @ w.T + b, as addmm (mm without a bias) over x's leading dims flattened.
std::optional<NodeId> Decomposer::linear(const graph::Node& n, std::string& why) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const auto w = node_of(arg_of(n, 1, "weight"));
  const auto b = node_of(arg_of(n, 2, "bias"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const std::optional<TensorMeta> wm = copy_of(meta(w));
  if (!xm || !wm || wm->rank() != 2 || xm->rank() < 2 || wm->strides.size() != 2) {
    why = "expected an input of rank 2 or more and a weight of rank 2, annotated";
    return std::nullopt;
  }
  const NodeId t =
      emit(n, fresh(n.name + "_permute"), "permute.default", {Argument::node(*w), int_list({1, 0})},
           value(*wm, {wm->sizes[1], wm->sizes[0]}, Dims{wm->strides[1], wm->strides[0]}));
  return gemm(n, *x, t, b);
}

// X (rank >= 2) times the matrix W (K x N), plus BIAS: addmm or mm over X's leading dims.
NodeId Decomposer::gemm(const graph::Node& n, NodeId x, NodeId w, std::optional<NodeId> bias) {
  const TensorMeta xm = *meta(x);
  const Dim cols = meta(w)->sizes[1];
  const std::size_t rank = xm.rank();
  const auto product_op = [&](NodeId a, std::string name, const Dims& sizes) {
    std::vector<Argument> args;
    if (bias) args.push_back(Argument::node(*bias));
    args.push_back(Argument::node(a));
    args.push_back(Argument::node(w));
    return emit(n, std::move(name), bias ? "addmm.default" : "mm.default", std::move(args),
                value(*n.meta, sizes));
  };
  if (rank == 2) return product_op(x, n.name, {xm.sizes[0], cols});
  const Dim rows = product(xm.sizes, 0, rank - 1);
  const NodeId flat = reshape(n, x, {rows, xm.sizes[rank - 1]}, fresh(n.name + "_view"));
  const NodeId mm = product_op(flat, fresh(n.name + (bias ? "_addmm" : "_mm")), {rows, cols});
  return emit(n, n.name, "view.default", {Argument::node(mm), size_list(n.meta->sizes)},
              value(*n.meta, n.meta->sizes));
}

std::optional<NodeId> Decomposer::matmul(const graph::Node& n, std::string& why) {
  const auto a = node_of(arg_of(n, 0, "self"));
  const auto b = node_of(arg_of(n, 1, "other"));
  const std::optional<TensorMeta> am = copy_of(meta(a));
  const std::optional<TensorMeta> bm = copy_of(meta(b));
  if (!am || !bm || am->rank() < 2 || bm->rank() < 2) {
    why = "expected annotated operands of rank 2 or more";
    return std::nullopt;
  }
  if (bm->rank() == 2) return gemm(n, *a, *b, std::nullopt);
  const std::size_t rank = am->rank();
  if (bm->rank() != rank ||
      !std::equal(am->sizes.begin(), am->sizes.end() - 2, bm->sizes.begin())) {
    why = "its operands broadcast their batch dimensions";
    return std::nullopt;
  }
  if (rank == 3) {
    return emit(n, n.name, "bmm.default", {Argument::node(*a), Argument::node(*b)},
                value(*n.meta, n.meta->sizes));
  }
  const Dim batch = product(am->sizes, 0, rank - 2);
  const NodeId a3 =
      reshape(n, *a, {batch, am->sizes[rank - 2], am->sizes[rank - 1]}, fresh(n.name + "_view"));
  const NodeId b3 =
      reshape(n, *b, {batch, bm->sizes[rank - 2], bm->sizes[rank - 1]}, fresh(n.name + "_view"));
  const NodeId p =
      emit(n, fresh(n.name + "_bmm"), "bmm.default", {Argument::node(a3), Argument::node(b3)},
           value(*n.meta, {batch, am->sizes[rank - 2], bm->sizes[rank - 1]}));
  return emit(n, n.name, "view.default", {Argument::node(p), size_list(n.meta->sizes)},
              value(*n.meta, n.meta->sizes));
}

// conv1d/2d/3d(x, w, b, stride, padding, dilation, groups) -> convolution(.., transposed=False).
// conv_transpose*d(x, w, b, stride, padding, output_padding, groups, dilation): the same
// convolution, transposed, its arguments in another order.
std::optional<NodeId> Decomposer::convolution(const graph::Node& n, std::size_t spatial,
                                              std::string& why, bool transposed) {
  const auto x = node_of(arg_of(n, 0, "input"));
  const auto w = node_of(arg_of(n, 1, "weight"));
  const std::optional<TensorMeta> xm = copy_of(meta(x));
  const std::optional<TensorMeta> wm = copy_of(meta(w));
  if (!xm || !wm || xm->rank() != spatial + 2 || wm->rank() != spatial + 2) {
    why = "expected a batched input and a weight of rank " + std::to_string(spatial + 2);
    return std::nullopt;
  }
  const Argument* bias = arg_of(n, 2, "bias");
  const Argument* stride_arg = arg_of(n, 3, "stride");
  const Argument* padding_arg = arg_of(n, 4, "padding");
  const Argument* dilation_arg = transposed ? arg_of(n, 7, "dilation") : arg_of(n, 5, "dilation");
  const Argument* output_padding_arg = transposed ? arg_of(n, 5, "output_padding") : nullptr;
  const auto output_padding = output_padding_arg ? ints_of(output_padding_arg, spatial)
                                                 : std::vector<std::int64_t>(spatial, 0);
  const auto stride =
      stride_arg ? ints_of(stride_arg, spatial) : std::vector<std::int64_t>(spatial, 1);
  const auto dilation =
      dilation_arg ? ints_of(dilation_arg, spatial) : std::vector<std::int64_t>(spatial, 1);
  const auto groups = arg_of(n, 6, "groups") ? int_of(arg_of(n, 6, "groups")) : 1;
  std::optional<std::vector<std::int64_t>> padding(std::vector<std::int64_t>(spatial, 0));
  if (padding_arg && padding_arg->kind() == Argument::Kind::string) {
    if (padding_arg->text() == "same" && dilation) {
      for (std::size_t i = 0; i < spatial && padding; ++i) {
        const Dim& k = wm->sizes[2 + i];
        const std::int64_t total = (*dilation)[i] * (k.value - 1);
        if (k.is_symbolic() || total % 2 != 0)
          padding.reset();
        else
          (*padding)[i] = total / 2;
      }
    } else if (padding_arg->text() != "valid") {
      padding.reset();
    }
  } else if (padding_arg) {
    padding = ints_of(padding_arg, spatial);
  }
  if (!stride || !dilation || !groups || !padding || !output_padding) {
    why = "stride, padding, dilation or groups not as integers (or padding='same' uneven)";
    return std::nullopt;
  }
  return emit(
      n, n.name, "convolution.default",
      {Argument::node(*x), Argument::node(*w),
       bias && bias->is_node() ? Argument::node(*node_of(bias)) : Argument(), int_list(*stride),
       int_list(*padding), int_list(*dilation), Argument::boolean(transposed),
       int_list(*output_padding), Argument::integer(*groups)},
      value(*n.meta, n.meta->sizes));
}

// scaled_dot_product_attention as the kernel PyTorch's CUDA dispatch picks: flash attention
// for bf16/f16 without a mask, memory-efficient attention otherwise; a 3-D call runs with a
// head dimension of 1.
// A boolean attention mask as the additive one the kernels take (sdpa's
// convert_boolean_attn_mask): 0 where it keeps a position, -inf where it masks it, in DTYPE.
NodeId Decomposer::additive_mask(const graph::Node& n, NodeId mask, const std::string& dtype) {
  const auto scalar = [&](double fill, const std::string& what) {
    TensorMeta m;
    m.dtype = dtype;
    m.device = meta(mask)->device;
    return emit(n, fresh(n.name + what), "full.default",
                {Argument::list({}), Argument::floating(fill)}, std::move(m),
                {{"dtype", dtype_symbol(dtype)},
                 {"device", Argument::symbol("device(type='cuda', index=0)")},
                 {"pin_memory", Argument::boolean(false)}});
  };
  const NodeId keep = scalar(0.0, "_keep");
  const NodeId drop = scalar(-std::numeric_limits<double>::infinity(), "_drop");
  TensorMeta m = value(*meta(mask), meta(mask)->sizes);
  m.dtype = dtype;
  return emit(n, fresh(n.name + "_mask"), "where.self",
              {Argument::node(mask), Argument::node(keep), Argument::node(drop)}, std::move(m));
}

std::optional<NodeId> Decomposer::attention(const graph::Node& n, std::string& why) {
  auto q = node_of(arg_of(n, 0, "query"));
  auto k = node_of(arg_of(n, 1, "key"));
  auto v = node_of(arg_of(n, 2, "value"));
  auto mask = node_of(arg_of(n, 3, "attn_mask"));
  const Argument* dropout_arg = arg_of(n, 4, "dropout_p");
  const Argument* causal_arg = arg_of(n, 5, "is_causal");
  const auto dropout = dropout_arg ? number_of(dropout_arg) : 0.0;
  const auto causal = causal_arg ? bool_of(causal_arg) : false;
  const Argument* scale = arg_of(n, 6, "scale");
  const Argument* gqa = arg_of(n, 7, "enable_gqa");
  const std::optional<TensorMeta> qm = copy_of(meta(q));
  if (!qm || !meta(k) || !meta(v) || !dropout || !causal || (qm->rank() != 3 && qm->rank() != 4) ||
      meta(k)->rank() != qm->rank() || meta(v)->rank() != qm->rank()) {
    why = "expected annotated query, key and value of rank 3 or 4";
    return std::nullopt;
  }
  if (gqa && bool_of(gqa).value_or(true)) {
    why = "grouped-query attention (enable_gqa)";
    return std::nullopt;
  }
  const bool batched = qm->rank() == 4;
  const auto heads = [&](NodeId t) {
    const TensorMeta m = *meta(t);
    Dims sizes = m.sizes;
    sizes.insert(sizes.begin() + 1, Dim::constant(1));
    return emit(n, fresh(n.name + "_unsqueeze"), "unsqueeze.default",
                {Argument::node(t), Argument::integer(1)}, value(m, sizes, Dims{}));
  };
  if (!batched) {
    q = heads(*q);
    k = heads(*k);
    v = heads(*v);
    if (mask && meta(mask) && meta(mask)->rank() == 3) mask = heads(*mask);
  }
  if (mask && meta(mask) && meta(mask)->dtype == "b8") mask = additive_mask(n, *mask, qm->dtype);
  std::vector<graph::KeywordArgument> kwargs;
  if (scale && !scale->is_none()) kwargs.emplace_back("scale", *scale);
  const bool flash = half_precision(qm->dtype) && !mask;
  const NodeId call =
      flash
          ? emit(n, fresh(n.name + "_flash"), "_scaled_dot_product_flash_attention.default",
                 {Argument::node(*q), Argument::node(*k), Argument::node(*v),
                  Argument::floating(*dropout), Argument::boolean(*causal),
                  Argument::boolean(false)},
                 std::nullopt, std::move(kwargs))
          : emit(n, fresh(n.name + "_efficient"), "_scaled_dot_product_efficient_attention.default",
                 {Argument::node(*q), Argument::node(*k), Argument::node(*v),
                  mask ? Argument::node(*mask) : Argument(), Argument::boolean(false),
                  Argument::floating(*dropout), Argument::boolean(*causal)},
                 std::nullopt, std::move(kwargs));
  if (batched) return getitem(n, call, 0, n.name, value(*n.meta, n.meta->sizes));
  Dims sizes = n.meta->sizes;
  sizes.insert(sizes.begin() + 1, Dim::constant(1));
  const NodeId out = getitem(n, call, 0, fresh(n.name + "_out"), value(*n.meta, sizes));
  return emit(n, n.name, "squeeze.dim", {Argument::node(out), Argument::integer(1)},
              value(*n.meta, n.meta->sizes));
}

}  // namespace fxscope::fusion::core_aten
