// ATen's fused LSTM cell (RNN.cu), forward and backward, as generated code.
//
// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias?, hidden_bias?) -> (hy, cy,
// workspace): the gates [B, 4H] hold the input, forget, cell and output gates side by side; a
// thread per element (b, h) of cx sums the two gates and the biases, takes sigmoid / tanh in
// float, and stores hy, cy and the four activations (the workspace the backward reads).
//
// _thnn_fused_lstm_cell_backward_impl(grad_hy?, grad_cy?, cx, cy, workspace, has_bias) ->
// (grad_gates [B, 4H], grad_cx [B, H], grad_bias [4H] when has_bias): grad_bias is grad_gates
// summed over the batch, so a thread takes one hidden unit h over every row b and keeps the four
// sums in registers: one launch, no atomics, the same sums on every run.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// The getitem of ctx.writes that picks output K of NODE, or nullopt when the graph reads none.
std::optional<NodeId> output_of(const KernelContext& ctx, NodeId node, std::int64_t k) {
  for (const NodeId w : ctx.writes) {
    const graph::Node& n = ctx.graph.node(w);
    if (w == node) continue;
    if (n.args.size() >= 2 && n.args[0].is_node() && n.args[0].as_node() == node &&
        n.args[1].kind() == graph::Argument::Kind::integer && n.args[1].as_int() == k) {
      return w;
    }
  }
  return std::nullopt;
}

std::optional<NodeId> node_at(const graph::Node& n, std::size_t i) {
  if (i < n.args.size() && n.args[i].is_node()) return n.args[i].as_node();
  return std::nullopt;
}

// Element (b, col) of a [B, C] tensor.
Index at2(const std::string& b, const std::string& col) {
  return Index{{b, col}, ""};
}

std::string plus(std::int64_t k, const std::string& e) {
  return k == 0 ? e : std::to_string(k) + " + " + e;
}

const char* const kGate[] = {"i", "f", "c", "o"};

}  // namespace

bool is_lstm_cell(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "_thnn_fused_lstm_cell" || base == "_thnn_fused_lstm_cell_backward_impl";
}

Result<GeneratedKernel> lstm_cell_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  const bool backward = ops::op_base_name(n.target) == "_thnn_fused_lstm_cell_backward_impl";
  const auto cx_node = node_at(n, 2);
  if (!cx_node) return op_error(ctx, n, "has no cx tensor");
  const auto cx = shape_of(g.node(*cx_node), ctx.hints);
  if (!cx || cx->sizes.size() != 2)
    return op_error(ctx, n, "takes a cx that is not [batch, hidden]");
  const std::string& dtype = g.node(*cx_node).meta->dtype;
  if (dtype != "f32" && dtype != "f16" && dtype != "bf16") return op_error(ctx, n, "on " + dtype);
  const std::int64_t rows = cx->sizes[0];
  const std::int64_t hidden = cx->sizes[1];
  const LaunchConfig config = ctx.default_config ? LaunchConfig{256, 1, 1} : ctx.config;
  const std::string ix = index_type(ctx, rows * hidden * 4);
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  const auto store = [&](std::int64_t k, const Index& at, const std::string& v) -> Result<bool> {
    const auto out = output_of(ctx, node, k);
    if (!out) return false;
    auto st = store_statement(em, *out, at, v);
    if (!st) return st.error();
    em.line(*st);
    return true;
  };
  const auto expr = [&](NodeId x, const Index& at) -> Result<std::string> {
    return em.value(x, at);
  };

  if (!backward) {
    const auto in_gates = node_at(n, 0);
    const auto hid_gates = node_at(n, 1);
    if (!in_gates || !hid_gates) return op_error(ctx, n, "has no gate tensors");
    const auto b1 = node_at(n, 3);
    const auto b2 = node_at(n, 4);
    em.open("for (" + ix + " e = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; e < " +
            std::to_string(rows * hidden) + "; e += " + ix + "(gridDim.x) * blockDim.x) {");
    em.line("const " + ix + " b = e / " + std::to_string(hidden) + ", h = e % " +
            std::to_string(hidden) + ";");
    std::string pre[4];
    for (std::int64_t k = 0; k < 4; ++k) {
      const std::string col = plus(k * hidden, "h");
      std::string sum;
      for (const auto& src : {*in_gates, *hid_gates}) {
        auto v = expr(src, at2("b", col));
        if (!v) return v.error();
        sum += (sum.empty() ? "" : " + ") + *v;
      }
      for (const auto& bias : {b1, b2}) {
        if (!bias) continue;
        auto v = expr(*bias, Index{{col}, ""});
        if (!v) return v.error();
        sum += " + " + *v;
      }
      pre[k] = sum;
    }
    // ATen's order: (input + hidden) + bias1 + bias2, sigmoid as 1 / (1 + exp(-x)).
    for (std::int64_t k = 0; k < 4; ++k) {
      const std::string x = "(" + pre[k] + ")";
      em.line("const float g" + std::string(kGate[k]) + " = " +
              (k == 2 ? "tanhf" + x : "1.0f / (1.0f + expf(-" + x + "))") + ";");
    }
    auto c = expr(*cx_node, at2("b", "h"));
    if (!c) return c.error();
    em.line("const float cy = gf * " + *c + " + gi * gc;");
    em.line("const float hy = go * tanhf(cy);");
    for (auto [k, v] : {std::pair{0, "hy"}, std::pair{1, "cy"}}) {
      if (auto s = store(k, at2("b", "h"), v); !s) return s.error();
    }
    for (std::int64_t k = 0; k < 4; ++k) {
      auto s = store(2, at2("b", plus(k * hidden, "h")), "g" + std::string(kGate[k]));
      if (!s) return s.error();
    }
    em.close();
    const std::int64_t grid =
        std::clamp<std::int64_t>((rows * hidden + config.block - 1) / config.block, 1, kSMs * 64);
    return finish_kernel(
        ctx, em, config, grid,
        "fused LSTM cell " + std::to_string(rows) + " x " + std::to_string(hidden) + " x " + dtype);
  }
  const auto grad_hy = node_at(n, 0);
  const auto grad_cy = node_at(n, 1);
  const auto cy_node = node_at(n, 3);
  const auto ws = node_at(n, 4);
  if (!cy_node || !ws) return op_error(ctx, n, "has no cy or workspace tensor");
  em.open("for (" + ix + " h = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; h < " +
          std::to_string(hidden) + "; h += " + ix + "(gridDim.x) * blockDim.x) {");
  em.line("float sum_i = 0.0f, sum_f = 0.0f, sum_c = 0.0f, sum_o = 0.0f;");
  em.open("for (" + ix + " b = 0; b < " + std::to_string(rows) + "; ++b) {");
  for (std::int64_t k = 0; k < 4; ++k) {
    auto v = expr(*ws, at2("b", plus(k * hidden, "h")));
    if (!v) return v.error();
    em.line("const float " + std::string(kGate[k]) + "g = " + *v + ";");
  }
  auto c = expr(*cx_node, at2("b", "h"));
  if (!c) return c.error();
  auto cy = expr(*cy_node, at2("b", "h"));
  if (!cy) return cy.error();
  std::string go = "0.0f";
  std::string goc = "0.0f";
  if (grad_hy) {
    auto v = expr(*grad_hy, at2("b", "h"));
    if (!v) return v.error();
    go = *v;
  }
  if (grad_cy) {
    auto v = expr(*grad_cy, at2("b", "h"));
    if (!v) return v.error();
    goc = *v;
  }
  // RNN.cu's lstm_cell_backward, step by step.
  em.line("const float go = " + go + ", goc = " + goc + ";");
  em.line("float gcx = tanhf(" + *cy + ");");
  em.line("float gog = go * gcx;");
  em.line("gcx = go * og * (1 - gcx * gcx) + goc;");
  em.line("float gig = gcx * cg;");
  em.line("float gfg = gcx * " + *c + ";");
  em.line("float gcg = gcx * ig;");
  em.line("gcx = gcx * fg;");
  em.line("gig = gig * (1 - ig) * ig;");
  em.line("gfg = gfg * (1 - fg) * fg;");
  em.line("gcg = gcg * (1 - cg * cg);");
  em.line("gog = gog * (1 - og) * og;");
  for (std::int64_t k = 0; k < 4; ++k) {
    const std::string v = "g" + std::string(kGate[k]) + "g";
    if (auto s = store(0, at2("b", plus(k * hidden, "h")), v); !s) return s.error();
    // ATen sums grad_gates as stored: a 16-bit gradient rounded before it is added.
    const std::string stored = dtype == "f16"    ? "fx_h2f(fx_f2h(" + v + "))"
                               : dtype == "bf16" ? "fx_b2f(fx_f2b(" + v + "))"
                                                 : v;
    em.line("sum_" + std::string(kGate[k]) + " += " + stored + ";");
  }
  if (auto s = store(1, at2("b", "h"), "gcx"); !s) return s.error();
  em.close();
  // grad_bias: grad_gates summed over the batch (ATen's grad_gates.sum(0)).
  const bool has_bias = n.args.size() > 5 && n.args[5].as_bool();
  if (has_bias) {
    for (std::int64_t k = 0; k < 4; ++k) {
      auto s = store(2, Index{{plus(k * hidden, "h")}, ""}, "sum_" + std::string(kGate[k]));
      if (!s) return s.error();
    }
  }
  em.close();
  const std::int64_t grid =
      std::clamp<std::int64_t>((hidden + config.block - 1) / config.block, 1, kSMs * 64);
  return finish_kernel(ctx, em, config, grid,
                       "fused LSTM cell backward " + std::to_string(rows) + " x " +
                           std::to_string(hidden) + " x " + dtype +
                           (has_bias ? ", bias gradient summed over the batch" : ""));
}

}  // namespace fxscope::codegen
