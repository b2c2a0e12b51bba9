// SDPA's backward (_scaled_dot_product_{efficient,flash,cudnn}_attention_backward) as one kernel
// of two roles, from what the forward saved: its output O and each query row's log-sum-exp.
// With P = exp(S - lse) (S the scaled scores, bias and causal mask as in the forward),
// D_i = dO_i . O_i and dS = P * (dO V^T - D): a block per query row i computes
// dQ_i = scale * sum_j dS_ij K_j; a block per key row j computes dV_j = sum_i P_ij dO_i and
// dK_j = scale * sum_i dS_ij Q_i. Every element is computed in float from the tensors' dtypes.
// Attention dropout is not applied, as in the forward, so the gradients are those of the
// forward the engine ran.

#include <cmath>
#include <optional>
#include <sstream>

#include "attention_text.h"
#include "fxscope/codegen/cuda_prelude.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

using namespace attention_text;

namespace {

// Argument positions of each backward op (PyTorch's native_functions.yaml):
//   efficient: (grad_out, q, k, v, attn_bias, out, logsumexp, philox_seed, philox_offset,
//               dropout_p, grad_input_mask, is_causal=False, *, scale)
//   flash:     (grad_out, q, k, v, out, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k,
//               dropout_p, is_causal, philox_seed, philox_offset, *, scale)
//   cudnn:     (grad_out, q, k, v, out, logsumexp, philox_seed, philox_offset, attn_bias,
//               cum_seq_q, cum_seq_k, max_q, max_k, dropout_p, is_causal, *, scale)
struct Positions {
  std::size_t out, lse, causal;
  std::optional<std::size_t> bias;
};

Positions positions(const std::string& target) {
  if (target.find("efficient") != std::string::npos) return {5, 6, 11, 4};
  if (target.find("cudnn") != std::string::npos) return {4, 5, 14, 8};
  return {4, 5, 11, std::nullopt};
}

}  // namespace

Result<AttentionSpec> describe_attention_backward(const graph::Graph& g, graph::NodeId id,
                                                  const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(id);
  const std::string where = "node " + n.name + " (attention backward)";
  const Positions at = positions(n.target);
  if (n.args.size() <= at.lse) {
    return make_error(where + ": expected grad_out, q, k, v, the forward's output and logsumexp");
  }
  AttentionSpec s;
  s.backward = true;
  for (auto [arg, t] : {std::pair{0, &s.grad_out}, {1, &s.q}, {2, &s.k}, {3, &s.v}}) {
    auto r = tensor_of(g, n.args[static_cast<std::size_t>(arg)], hints, where);
    if (!r) return r.error();
    *t = *r;
  }
  auto o = tensor_of(g, n.args[at.out], hints, where);
  if (!o) return o.error();
  s.fwd_out = *o;
  if (!n.args[at.lse].is_node()) return make_error(where + ": logsumexp is not a tensor");
  s.lse = lse_of(g, n.args[at.lse].as_node(), hints);
  if (!s.lse || s.lse->sizes[2] < s.q.sizes[2]) {
    return make_error(where + ": logsumexp is not an f32 [B, H, L] or [B, H, L, 1] tensor");
  }
  if (at.bias && n.args.size() > *at.bias && n.args[*at.bias].is_node()) {
    auto b = tensor_of(g, n.args[*at.bias], hints, where);
    if (!b) return b.error();
    s.bias = *b;
  }
  if (n.args.size() > at.causal && n.args[at.causal].kind() == graph::Argument::Kind::boolean) {
    s.causal = n.args[at.causal].as_bool();
  }
  for (const auto& [key, value] : n.kwargs) {
    if (key == "is_causal" && value.kind() == graph::Argument::Kind::boolean) {
      s.causal = value.as_bool();
    }
  }
  s.scale = float_kwarg(n, "scale").value_or(1.0 / std::sqrt(static_cast<double>(s.q.sizes[3])));
  if (s.bias && getitem(g, id, 3)) {
    return make_error(where + ": the gradient of the attention bias is not computed");
  }
  for (auto [index, t] : {std::pair{0, &s.dq}, {1, &s.dk}, {2, &s.dv}}) {
    const auto item = getitem(g, id, index);
    if (!item) {
      return make_error(where + ": no getitem [" + std::to_string(index) + "] takes a gradient");
    }
    auto r = tensor_of(g, graph::Argument::node(*item), hints, where);
    if (!r) return r.error();
    *t = *r;
  }
  s.out = s.dq;
  return s;
}

std::string attention_backward_source(const AttentionSpec& s) {
  const std::int64_t heads = s.q.sizes[1];
  const std::int64_t rows = s.q.sizes[2];
  const std::int64_t cols = s.k.sizes[2];
  const std::int64_t dim = s.q.sizes[3];
  const AttentionTensor& bias = s.bias ? *s.bias : s.q;
  const std::string scale = float_literal(s.scale);
  // The scaled score of (i, j) in acc, with bias and mask, as the forward computes it.
  const auto score = [&](const std::string& indent) {
    std::string e = "acc *= " + scale + ";\n";
    if (s.bias) e += indent + "acc += " + load("bias", *s.bias, "i", "j") + ";\n";
    if (s.causal) e += indent + "if (j > i) acc = neg_inf;\n";
    return e + indent;
  };
  std::ostringstream o;
  o.precision(17);
  o << codegen::cuda_prelude() << "extern \"C\" __global__ void fxscope_attention(const "
    << c_type(s.q) << "* __restrict__ q, const " << c_type(s.k) << "* __restrict__ k, const "
    << c_type(s.v) << "* __restrict__ v, const " << c_type(bias) << "* __restrict__ bias, const "
    << c_type(s.grad_out) << "* __restrict__ dout, const " << c_type(s.fwd_out)
    << "* __restrict__ o, const float* __restrict__ lse, " << c_type(s.dq) << "* __restrict__ dq, "
    << c_type(s.dk) << "* __restrict__ dk, " << c_type(s.dv) << "* __restrict__ dv) {\n"
    << "  const float neg_inf = __int_as_float(0xff800000);\n"
    << "  extern __shared__ float smem[];\n"
    << "  const int t = threadIdx.x;\n"
    << "  const long long query_blocks = " << s.q.sizes[0] * heads * rows << "LL;\n"
    << "  if (blockIdx.x < query_blocks) {  // a query row: dq\n"
    << "    const long long row = blockIdx.x;\n"
    << "    const long long i = row % " << rows << "LL;\n"
    << "    const long long h = (row / " << rows << "LL) % " << heads << "LL;\n"
    << "    const long long b = row / " << rows * heads << "LL;\n"
    << "    float* qs = smem;\n"
    << "    float* dos = qs + " << dim << ";\n"
    << "    float* ds = dos + " << dim << ";\n"
    << "    float* red = ds + " << cols << ";\n"
    << "    float part = 0.f;\n"
    << "    for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "      qs[d] = " << load("q", s.q, "i", "d") << ";\n"
    << "      dos[d] = " << load("dout", s.grad_out, "i", "d") << ";\n"
    << "      part += dos[d] * " << load("o", s.fwd_out, "i", "d") << ";\n"
    << "    }\n"
    << "    red[t] = part;\n"
    << "    __syncthreads();\n"
    << "    for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
    << "      if (t < w) red[t] += red[t + w];\n"
    << "      __syncthreads();\n"
    << "    }\n"
    << "    const float di = red[0];\n"
    << "    const float li = " << offset("lse", *s.lse, "i", "0") << ";\n"
    << "    for (int j = t; j < " << cols << "; j += blockDim.x) {\n"
    << "      float acc = 0.f;\n"
    << "      for (int d = 0; d < " << dim << "; ++d) acc += qs[d] * " << load("k", s.k, "j", "d")
    << ";\n"
    << "      " << score("      ") << "const float p = acc == neg_inf ? 0.f : expf(acc - li);\n"
    << "      float dp = 0.f;\n"
    << "      for (int d = 0; d < " << dim << "; ++d) dp += dos[d] * " << load("v", s.v, "j", "d")
    << ";\n"
    << "      ds[j] = p * (dp - di);\n"
    << "    }\n"
    << "    __syncthreads();\n"
    << "    for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "      float acc = 0.f;\n"
    << "      for (int j = 0; j < " << cols << "; ++j) acc += ds[j] * " << load("k", s.k, "j", "d")
    << ";\n"
    << "      " << store("dq", s.dq, "i", "d", "acc * " + scale) << "\n"
    << "    }\n"
    << "    return;\n"
    << "  }\n"
    << "  // a key row: dk and dv\n"
    << "  const long long row = blockIdx.x - query_blocks;\n"
    << "  const long long j = row % " << cols << "LL;\n"
    << "  const long long h = (row / " << cols << "LL) % " << heads << "LL;\n"
    << "  const long long b = row / " << cols * heads << "LL;\n"
    << "  float* ks = smem;\n"
    << "  float* vs = ks + " << dim << ";\n"
    << "  float* ps = vs + " << dim << ";\n"
    << "  float* ds = ps + " << rows << ";\n"
    << "  for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "    ks[d] = " << load("k", s.k, "j", "d") << ";\n"
    << "    vs[d] = " << load("v", s.v, "j", "d") << ";\n"
    << "  }\n"
    << "  __syncthreads();\n"
    << "  for (int i = t; i < " << rows << "; i += blockDim.x) {\n"
    << "    float acc = 0.f, dp = 0.f, di = 0.f;\n"
    << "    for (int d = 0; d < " << dim << "; ++d) {\n"
    << "      const float g = " << load("dout", s.grad_out, "i", "d") << ";\n"
    << "      acc += " << load("q", s.q, "i", "d") << " * ks[d];\n"
    << "      dp += g * vs[d];\n"
    << "      di += g * " << load("o", s.fwd_out, "i", "d") << ";\n"
    << "    }\n"
    << "    " << score("    ") << "const float p = acc == neg_inf ? 0.f : expf(acc - "
    << offset("lse", *s.lse, "i", "0") << ");\n"
    << "    ps[i] = p;\n"
    << "    ds[i] = p * (dp - di);\n"
    << "  }\n"
    << "  __syncthreads();\n"
    << "  for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "    float gv = 0.f, gk = 0.f;\n"
    << "    for (int i = 0; i < " << rows << "; ++i) {\n"
    << "      gv += ps[i] * " << load("dout", s.grad_out, "i", "d") << ";\n"
    << "      gk += ds[i] * " << load("q", s.q, "i", "d") << ";\n"
    << "    }\n"
    << "    " << store("dv", s.dv, "j", "d", "gv") << "\n"
    << "    " << store("dk", s.dk, "j", "d", "gk * " + scale) << "\n"
    << "  }\n"
    << "}\n";
  return o.str();
}

}  // namespace fxscope::gpu
