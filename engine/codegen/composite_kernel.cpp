// Eager composite ops that PyTorch runs as one kernel each: softmax, log-softmax and layer norm.
// Same team-per-row scheme as reduction_kernel.cpp: pass 1 reduces the row (online softmax
// state, or Welford's mean and variance), pass 2 writes the normalised row.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// The getitem of tuple NODE that picks output K, or nullopt.
std::optional<NodeId> output_of(const KernelContext& ctx, NodeId node, std::int64_t k) {
  for (const NodeId w : ctx.writes) {
    if (w == node && k == 0) return w;
    const graph::Node& n = ctx.graph.node(w);
    if (ops::op_key(n.target) == "operator.getitem" && n.args.size() > 1 && n.args[0].is_node() &&
        n.args[0].as_node() == node && int_at(n, 1, -1) == k) {
      return w;
    }
  }
  return std::nullopt;
}

}  // namespace

bool is_composite(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "_softmax" || base == "_log_softmax" || base == "native_layer_norm";
}

Result<GeneratedKernel> composite_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  const NodeId node = ctx.group.nodes.front();
  const graph::Node& n = g.node(node);
  const std::string base(ops::op_base_name(n.target));
  if (n.args.empty() || !n.args[0].is_node()) return make_error(ctx.where + ": no input tensor");
  const NodeId x = n.args[0].as_node();
  const auto shape = shape_of(g.node(x), ctx.hints);
  if (!shape || shape->sizes.empty()) return make_error(ctx.where + ": input has no annotation");
  const std::size_t rank = shape->sizes.size();
  const bool layer_norm = base == "native_layer_norm";
  std::vector<bool> reduced(rank, false);
  if (layer_norm) {
    const std::size_t k = std::min(rank, ints_at(n, 1).size());
    for (std::size_t d = rank - k; d < rank; ++d) reduced[d] = true;
  } else {
    const auto dim = static_cast<std::size_t>(wrap_dim(int_at(n, 1, -1), rank));
    if (dim >= rank) return make_error(ctx.where + ": softmax over a missing dim");
    reduced[dim] = true;
  }
  std::vector<std::int64_t> kept;
  std::vector<std::int64_t> red;
  for (std::size_t d = 0; d < rank; ++d) (reduced[d] ? red : kept).push_back(shape->sizes[d]);
  std::int64_t rows = 1;
  std::int64_t len = 1;
  for (const std::int64_t s : kept) rows *= s;
  for (const std::int64_t s : red) len *= s;
  std::int64_t team = 1;
  while (team < (len + 3) / 4 && team < 256) team *= 2;
  LaunchConfig config =
      ctx.default_config ? LaunchConfig{256, 1, static_cast<int>(256 / team)} : ctx.config;
  if (config.block <= 0 || config.rows_per_block <= 0 || config.block % config.rows_per_block ||
      config.block > 1024) {
    return make_error(ctx.where + ": launch config needs block divisible by rows_per_block");
  }
  team = config.block / config.rows_per_block;
  if ((team & (team - 1)) != 0) return make_error(ctx.where + ": threads per row must be 2^k");
  const std::string T = std::to_string(team);
  const std::string RPB = std::to_string(config.rows_per_block);
  const std::string ix = index_type(ctx, shape->numel());

  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  const Index kept_idx = delinearize("xrow", kept);
  const Index red_idx = delinearize("rr", red);
  Index idx;
  for (std::size_t d = 0, k = 0, r = 0; d < rank; ++d) {
    idx.dims.push_back(reduced[d] ? red_idx.dims[r++] : kept_idx.dims[k++]);
  }
  em.open("for (" + ix + " row0 = " + ix + "(blockIdx.x) * " + RPB + "; row0 < " +
          std::to_string(rows) + "; row0 += " + ix + "(gridDim.x) * " + RPB + ") {");
  em.line("const " + ix + " xrow = row0 + threadIdx.x / " + T + ";");
  em.line("const int lane = threadIdx.x % " + T + ";");
  em.line("const bool active = xrow < " + std::to_string(rows) + ";");
  em.line(layer_norm ? "FxWelfordState acc = FxWelfordState{0.0f, 0.0f, 0.0f};"
                     : "FxSoftmaxState acc = FxSoftmaxState{-FX_INF, 0.0f};");
  em.open("if (active) for (" + ix + " rr = lane; rr < " + std::to_string(len) + "; rr += " + T +
          ") {");
  auto v = em.value(x, idx);
  if (!v) return v.error();
  em.line(layer_norm ? "acc = FxWelford()(acc, FxWelfordState{" + *v + ", 0.0f, 1.0f});"
                     : "acc = FxOnlineSoftmax()(acc, FxSoftmaxState{" + *v + ", 1.0f});");
  em.close();
  em.line(layer_norm ? "acc = fx_team_reduce(acc, FxWelford(), " + T + ");"
                     : "acc = fx_team_reduce(acc, FxOnlineSoftmax(), " + T + ");");
  std::string eps = "0.0f";
  if (layer_norm) {
    if (n.args.size() > 4) {
      const graph::Argument& e = n.args[4];
      eps =
          float_literal(e.kind() == graph::Argument::Kind::integer ? static_cast<double>(e.as_int())
                                                                   : e.as_float());
    }
    // Layer norm divides by n (biased variance).
    em.line("const float rstd = rsqrtf(acc.m2 / fx_max(acc.n, 1.0f) + " + eps + ");");
  }
  const auto out = layer_norm ? output_of(ctx, node, 0) : std::optional<NodeId>(node);
  if (out) {
    const std::string out_name = em.param_name(*out);
    em.open("if (active) for (" + ix + " rr = lane; rr < " + std::to_string(len) + "; rr += " + T +
            ") {");
    auto xv = em.value(x, idx);
    if (!xv) return xv.error();
    std::string y;
    if (base == "_softmax") y = "expf(" + *xv + " - acc.m) / acc.s";
    if (base == "_log_softmax") y = *xv + " - acc.m - logf(acc.s)";
    if (layer_norm) {
      y = "(" + *xv + " - acc.mean) * rstd";
      // weight and bias (None when the norm has no affine part) index the normalised dims.
      for (const std::size_t a : {std::size_t{2}, std::size_t{3}}) {
        if (n.args.size() <= a || !n.args[a].is_node()) continue;
        Index w;
        for (std::size_t d = 0; d < rank; ++d) {
          if (reduced[d]) w.dims.push_back(idx.dims[d]);
        }
        auto wv = em.value(n.args[a].as_node(), w);
        if (!wv) return wv.error();
        y = a == 2 ? "(" + y + ") * " + *wv : y + " + " + *wv;
      }
    }
    auto st = store_statement(em, *out, idx, y);
    if (!st) return st.error();
    em.line(*st);
    em.close();
  }
  if (layer_norm) {
    em.open("if (active && lane == 0) {");
    for (const std::int64_t k : {1, 2}) {
      const auto w = output_of(ctx, node, k);
      if (!w) continue;
      auto ws = shape_of(g.node(*w), ctx.hints);
      if (!ws) return make_error(ctx.where + ": mean/rstd output has no annotation");
      auto st =
          store_statement(em, *w, delinearize("xrow", ws->sizes), k == 1 ? "acc.mean" : "rstd");
      if (!st) return st.error();
      em.line(*st);
    }
    em.close();
  }
  em.close();
  return finish_kernel(ctx, em, config, row_grid(rows, config),
                       "reduction " + std::to_string(rows) + " rows x " + std::to_string(len) +
                           " (" + base + "), 2 passes, " + T + " threads per row");
}

}  // namespace fxscope::codegen
