#include "fxscope/gpu/attention_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "attention_text.h"
#include "fxscope/codegen/cuda_prelude.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {
namespace attention_text {

Result<AttentionTensor> tensor_of(const graph::Graph& g, const graph::Argument& arg,
                                  const ops::SymbolHints& hints, const std::string& where) {
  if (!arg.is_node()) return make_error(where + ": an operand is not a tensor");
  const graph::Node& n = g.node(arg.as_node());
  if (!n.meta || n.meta->rank() != 4 || n.meta->strides.size() != 4) {
    return make_error(where + ": " + n.name + " is not an annotated 4-d tensor");
  }
  if (n.meta->dtype != "f32" && n.meta->dtype != "bf16" && n.meta->dtype != "f16") {
    return make_error(where + ": " + n.name + " is " + n.meta->dtype +
                      "; attention runs on f32, bf16 and f16 tensors");
  }
  AttentionTensor t;
  t.node = arg.as_node();
  t.dtype = n.meta->dtype;
  for (std::size_t d = 0; d < 4; ++d) {
    t.sizes[d] = ops::eval_dim(n.meta->sizes[d], hints);
    t.strides[d] = t.sizes[d] == 1 ? 0 : ops::eval_dim(n.meta->strides[d], hints);
  }
  return t;
}

std::optional<double> float_kwarg(const graph::Node& n, const char* name) {
  for (const auto& [k, v] : n.kwargs) {
    if (k != name) continue;
    if (v.kind() == graph::Argument::Kind::floating) return v.as_float();
    if (v.kind() == graph::Argument::Kind::integer) return static_cast<double>(v.as_int());
  }
  return std::nullopt;
}

std::string index_of(const AttentionTensor& t, const char* row, const char* col) {
  std::ostringstream s;
  s << "(b * " << t.strides[0] << "LL + h * " << t.strides[1] << "LL + (long long)(" << row
    << ") * " << t.strides[2] << "LL + (long long)(" << col << ") * " << t.strides[3] << "LL)";
  return s.str();
}

std::string offset(const char* name, const AttentionTensor& t, const char* row, const char* col) {
  return std::string(name) + "[" + index_of(t, row, col) + "]";
}

// The element of T at (ROW, COL) as a float expression.
std::string load(const char* name, const AttentionTensor& t, const char* row, const char* col) {
  const std::string at = offset(name, t, row, col);
  if (t.dtype == "bf16") return "fx_b2f(" + at + ")";
  if (t.dtype == "f16") return "fx_h2f(" + at + ")";
  return at;
}

// The statement storing the float expression VALUE into OUT at (ROW, COL).
std::string store(const char* name, const AttentionTensor& out, const char* row, const char* col,
                  const std::string& value) {
  const std::string at = offset(name, out, row, col);
  if (out.dtype == "bf16") return at + " = fx_f2b(" + value + ");";
  if (out.dtype == "f16") return at + " = fx_f2h(" + value + ");";
  return at + " = " + value + ";";
}

std::string c_type(const AttentionTensor& t) {
  return t.dtype == "bf16" ? "fx_bf16" : t.dtype == "f16" ? "fx_half" : "float";
}

std::string float_literal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string text = buf;
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text + "f";
}

std::optional<AttentionTensor> lse_of(const graph::Graph& g, graph::NodeId node,
                                      const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(node);
  if (!n.meta || n.meta->dtype != "f32" || n.meta->rank() < 3 || n.meta->rank() > 4 ||
      n.meta->strides.size() != n.meta->rank()) {
    return std::nullopt;
  }
  AttentionTensor t;
  t.node = node;
  for (std::size_t d = 0; d < n.meta->rank(); ++d) {
    t.sizes[d] = ops::eval_dim(n.meta->sizes[d], hints);
    t.strides[d] = t.sizes[d] == 1 ? 0 : ops::eval_dim(n.meta->strides[d], hints);
  }
  if (n.meta->rank() == 3) t.sizes[3] = 1;  // strides[3] stays 0: the column index is 0
  return t;
}

std::optional<graph::NodeId> getitem(const graph::Graph& g, graph::NodeId node,
                                     std::int64_t index) {
  const auto users = g.users();  // a copy: the loop must not range over a temporary's element
  for (const graph::NodeId u : users[node]) {
    const graph::Node& un = g.node(u);
    if (un.target == "operator.getitem" && un.args.size() == 2 &&
        un.args[1].kind() == graph::Argument::Kind::integer && un.args[1].as_int() == index) {
      return u;
    }
  }
  return std::nullopt;
}

// The kernel's signature: each tensor in its own dtype.
std::string signature(const AttentionSpec& s, const std::string& head) {
  const AttentionTensor& bias = s.bias ? *s.bias : s.q;
  return head + "fxscope_attention(const " + c_type(s.q) + "* __restrict__ q, const " +
         c_type(s.k) + "* __restrict__ k, const " + c_type(s.v) + "* __restrict__ v, const " +
         c_type(bias) + "* __restrict__ bias, " + c_type(s.out) +
         "* __restrict__ out, float* __restrict__ lse, long long* __restrict__ zero0, "
         "long long* __restrict__ zero1) {\n"
         "  if (blockIdx.x == 0 && threadIdx.x == 0) {  // no dropout: philox seed and offset 0\n"
         "    if (zero0) *zero0 = 0;\n"
         "    if (zero1) *zero1 = 0;\n"
         "  }\n";
}

// The statement writing row I's log-sum-exp (max M, sum of exponentials SUM) when it is taken.
std::string lse_store(const AttentionSpec& s, const char* m, const char* sum) {
  if (!s.lse) return "";
  return "if (lse) " + offset("lse", *s.lse, "i", "0") + " = " + m +
         " == neg_inf ? neg_inf : " + m + " + logf(" + sum + ");\n";
}

}  // namespace attention_text

using namespace attention_text;

bool is_attention_target(const std::string& t) {
  return t.find("_scaled_dot_product_efficient_attention") != std::string::npos ||
         t.find("_scaled_dot_product_flash_attention") != std::string::npos ||
         t.find("_scaled_dot_product_cudnn_attention") != std::string::npos;
}

bool is_attention_backward_target(const std::string& t) {
  return is_attention_target(t) && t.find("_backward") != std::string::npos;
}

Result<AttentionSpec> describe_attention(const graph::Graph& g, graph::NodeId id,
                                         const ops::SymbolHints& hints) {
  const graph::Node& n = g.node(id);
  const std::string where = "node " + n.name + " (attention)";
  if (is_attention_backward_target(n.target)) return describe_attention_backward(g, id, hints);
  if (n.args.size() < 3) return make_error(where + ": expected query, key and value");
  AttentionSpec spec;
  auto q = tensor_of(g, n.args[0], hints, where);
  if (!q) return q.error();
  auto k = tensor_of(g, n.args[1], hints, where);
  if (!k) return k.error();
  auto v = tensor_of(g, n.args[2], hints, where);
  if (!v) return v.error();
  // The kernels index key and value by the query's batch and head: grouped-query attention
  // (SDPA's enable_gqa, fewer key heads than query heads) would read past their end.
  for (const AttentionTensor* t : {&*k, &*v}) {
    for (std::size_t d = 0; d < 2; ++d) {
      if (t->sizes[d] != q->sizes[d] && t->sizes[d] != 1) {
        return make_error(where + ": " + g.node(t->node).name + " has " +
                          std::to_string(t->sizes[d]) + (d == 0 ? " batches" : " heads") +
                          " against the query's " + std::to_string(q->sizes[d]) +
                          " (grouped-query attention without repeated keys is not run)");
      }
    }
  }
  spec.q = *q;
  spec.k = *k;
  spec.v = *v;
  const bool efficient = n.target.find("efficient") != std::string::npos;
  const bool cudnn = n.target.find("cudnn") != std::string::npos;
  // efficient and cudnn: (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal, ...);
  // flash takes no bias: (q, k, v, dropout_p, is_causal, ...).
  if ((efficient || cudnn) && n.args.size() > 3 && n.args[3].is_node()) {
    auto b = tensor_of(g, n.args[3], hints, where);
    if (!b) return b.error();
    spec.bias = *b;
  }
  const std::size_t causal_at = efficient || cudnn ? 6 : 4;
  if (n.args.size() > causal_at && n.args[causal_at].kind() == graph::Argument::Kind::boolean) {
    spec.causal = n.args[causal_at].as_bool();
  }
  for (const auto& [key, value] : n.kwargs) {
    if (key == "is_causal" && value.kind() == graph::Argument::Kind::boolean) {
      spec.causal = value.as_bool();
    }
  }
  spec.scale = float_kwarg(n, "scale").value_or(1.0 / std::sqrt(static_cast<double>(q->sizes[3])));
  const auto out = getitem(g, id, 0);
  if (!out) return make_error(where + ": no getitem [0] takes the attention's output");
  auto o = tensor_of(g, graph::Argument::node(*out), hints, where);
  if (!o) return o.error();
  spec.out = *o;
  if (const auto lse = getitem(g, id, 1)) spec.lse = lse_of(g, *lse, hints);
  // The philox seed and offset: outputs 2 and 3 of the efficient kernel, 6 and 7 of the others.
  for (const std::int64_t at :
       efficient ? std::array<std::int64_t, 2>{2, 3} : std::array<std::int64_t, 2>{6, 7}) {
    const auto seed = getitem(g, id, at);
    if (seed && g.node(*seed).meta && g.node(*seed).meta->dtype == "i64") {
      spec.zeroed.push_back(*seed);
    }
  }
  return spec;
}

namespace {

constexpr int kRowThreads = 128;
constexpr int kTileRows = 16;
constexpr int kTileWarps = 8;
constexpr std::size_t kMaxTiledShared = 200 * 1024;

std::size_t tiled_shared_bytes(const AttentionSpec& s) {
  const auto cols = static_cast<std::size_t>(s.k.sizes[2]);
  const auto dim = static_cast<std::size_t>(s.q.sizes[3]);
  return (cols * (2 * dim + 1) + kTileWarps * (cols + dim)) * sizeof(float);
}

}  // namespace

bool attention_tiles_fit(const AttentionSpec& spec) {
  return !spec.backward && tiled_shared_bytes(spec) <= kMaxTiledShared;
}

int attention_threads(const AttentionSpec& spec) {
  if (spec.tensor_cores) return attention_mma_threads();
  return spec.tiled ? 32 * kTileWarps : kRowThreads;
}

long long attention_blocks(const AttentionSpec& spec) {
  if (spec.tensor_cores) return attention_mma_blocks(spec);
  const long long heads = spec.q.sizes[0] * spec.q.sizes[1];
  const long long rows = spec.q.sizes[2];
  // The backward: a block per query row (dq), then a block per key row (dk, dv).
  if (spec.backward) return heads * (rows + spec.k.sizes[2]);
  return spec.tiled ? heads * ((rows + kTileRows - 1) / kTileRows) : heads * rows;
}

std::size_t attention_shared_bytes(const AttentionSpec& spec) {
  if (spec.tensor_cores) return attention_mma_shared_bytes(spec);
  if (spec.tiled) return tiled_shared_bytes(spec);
  if (spec.backward) {
    const auto dim = static_cast<std::size_t>(spec.q.sizes[3]);
    const auto rows = static_cast<std::size_t>(spec.q.sizes[2]);
    const auto cols = static_cast<std::size_t>(spec.k.sizes[2]);
    return std::max(2 * dim + cols + kRowThreads, 2 * dim + 2 * rows) * sizeof(float);
  }
  return static_cast<std::size_t>(spec.q.sizes[3] + spec.k.sizes[2] + 2 * kRowThreads) *
         sizeof(float);
}

namespace {

// 16 query rows of one head per block; each warp takes a row at a time: scores over the keys
// held in shared memory (rows padded by one float so that lanes reading different keys hit
// different banks), the softmax with warp shuffles, then the weighted sum of values.
std::string tiled_source(const AttentionSpec& s) {
  const std::int64_t heads = s.q.sizes[1];
  const std::int64_t rows = s.q.sizes[2];
  const std::int64_t cols = s.k.sizes[2];
  const std::int64_t dim = s.q.sizes[3];
  const std::int64_t tiles = (rows + kTileRows - 1) / kTileRows;
  std::ostringstream o;
  o.precision(17);
  o << codegen::cuda_prelude()
    << signature(s, "extern \"C\" __global__ void __launch_bounds__(" +
                        std::to_string(32 * kTileWarps) + ") ")
    << "  const float neg_inf = __int_as_float(0xff800000);\n"
    << "  const long long bh = blockIdx.x / " << tiles << "LL;\n"
    << "  const int tile = blockIdx.x % " << tiles << ";\n"
    << "  const long long h = bh % " << heads << "LL;\n"
    << "  const long long b = bh / " << heads << "LL;\n"
    << "  extern __shared__ float smem[];\n"
    << "  float* ks = smem;\n"
    << "  float* vs = ks + " << cols * (dim + 1) << ";\n"
    << "  float* ps = vs + " << cols * dim << ";\n"
    << "  float* qs = ps + " << kTileWarps * cols << ";\n"
    << "  for (int e = threadIdx.x; e < " << cols * dim << "; e += blockDim.x) {\n"
    << "    const int j = e / " << dim << ";\n"
    << "    const int d = e % " << dim << ";\n"
    << "    ks[j * " << dim + 1 << " + d] = " << load("k", s.k, "j", "d") << ";\n"
    << "    vs[j * " << dim << " + d] = " << load("v", s.v, "j", "d") << ";\n"
    << "  }\n"
    << "  __syncthreads();\n"
    << "  const int warp = threadIdx.x / 32;\n"
    << "  const int lane = threadIdx.x % 32;\n"
    << "  float* p = ps + warp * " << cols << ";\n"
    << "  float* qw = qs + warp * " << dim << ";\n"
    << "  const int end = min(" << rows << ", (tile + 1) * " << kTileRows << ");\n"
    << "  for (int i = tile * " << kTileRows << " + warp; i < end; i += " << kTileWarps << ") {\n"
    << "    for (int d = lane; d < " << dim << "; d += 32) qw[d] = " << load("q", s.q, "i", "d")
    << ";\n"
    << "    __syncwarp();\n"
    << "    float m = neg_inf;\n"
    << "    for (int j = lane; j < " << cols << "; j += 32) {\n"
    << "      float acc = 0.f;\n"
    << "      for (int d = 0; d < " << dim << "; ++d) acc += qw[d] * ks[j * " << dim + 1
    << " + d];\n"
    << "      acc *= " << float_literal(s.scale) << ";\n";
  if (s.bias) o << "      acc += " << load("bias", *s.bias, "i", "j") << ";\n";
  if (s.causal) o << "      if (j > i) acc = neg_inf;\n";
  o << "      p[j] = acc;\n"
    << "      m = fmaxf(m, acc);\n"
    << "    }\n"
    << "    for (int w = 16; w > 0; w >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, w));\n"
    << "    float sum = 0.f;\n"
    << "    for (int j = lane; j < " << cols << "; j += 32) {\n"
    << "      const float e = m == neg_inf ? 0.f : expf(p[j] - m);\n"
    << "      p[j] = e;\n"
    << "      sum += e;\n"
    << "    }\n"
    << "    for (int w = 16; w > 0; w >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, w);\n"
    << "    __syncwarp();\n"
    << "    const float inv = 1.f / sum;\n"
    << "    if (lane == 0) { " << lse_store(s, "m", "sum") << "    }\n"
    << "    for (int d = lane; d < " << dim << "; d += 32) {\n"
    << "      float acc = 0.f;\n"
    << "      for (int j = 0; j < " << cols << "; ++j) acc += p[j] * vs[j * " << dim << " + d];\n"
    << "      " << store("out", s.out, "i", "d", "acc * inv") << "\n"
    << "    }\n"
    << "    __syncwarp();\n"
    << "  }\n"
    << "}\n";
  return o.str();
}

}  // namespace

std::vector<std::optional<graph::NodeId>> attention_arguments(const AttentionSpec& s) {
  std::vector<std::optional<graph::NodeId>> a = {s.q.node, s.k.node, s.v.node};
  a.push_back(s.bias ? std::optional(s.bias->node) : std::nullopt);
  const auto lse = s.lse ? std::optional(s.lse->node) : std::nullopt;
  if (s.backward) {
    a.insert(a.end(), {s.grad_out.node, s.fwd_out.node, lse, s.dq.node, s.dk.node, s.dv.node});
    return a;
  }
  a.insert(a.end(), {s.out.node, lse});
  for (std::size_t i = 0; i < 2; ++i) {
    a.push_back(i < s.zeroed.size() ? std::optional(s.zeroed[i]) : std::nullopt);
  }
  return a;
}

std::string attention_source(const AttentionSpec& s) {
  if (s.backward) return attention_backward_source(s);
  if (s.tensor_cores) return attention_mma_source(s);
  if (s.tiled) return tiled_source(s);
  const std::int64_t heads = s.q.sizes[1];
  const std::int64_t rows = s.q.sizes[2];
  const std::int64_t cols = s.k.sizes[2];
  const std::int64_t dim = s.q.sizes[3];
  std::ostringstream o;
  o.precision(17);
  o << codegen::cuda_prelude() << signature(s, "extern \"C\" __global__ void ")
    << "  const float neg_inf = __int_as_float(0xff800000);\n"
    << "  const long long row = blockIdx.x;\n"
    << "  const long long i = row % " << rows << "LL;\n"
    << "  const long long h = (row / " << rows << "LL) % " << heads << "LL;\n"
    << "  const long long b = row / " << rows * heads << "LL;\n"
    << "  extern __shared__ float smem[];\n"
    << "  float* qs = smem;\n"
    << "  float* sc = smem + " << dim << ";\n"
    << "  float* red = sc + " << cols << ";\n"
    << "  const int t = threadIdx.x;\n"
    << "  for (int d = t; d < " << dim << "; d += blockDim.x) qs[d] = " << load("q", s.q, "i", "d")
    << ";\n"
    << "  __syncthreads();\n"
    << "  float local_max = neg_inf;\n"
    << "  for (int j = t; j < " << cols << "; j += blockDim.x) {\n"
    << "    float acc = 0.f;\n"
    << "    for (int d = 0; d < " << dim << "; ++d) acc += qs[d] * " << load("k", s.k, "j", "d")
    << ";\n"
    << "    acc *= " << float_literal(s.scale) << ";\n";
  if (s.bias) o << "    acc += " << load("bias", *s.bias, "i", "j") << ";\n";
  if (s.causal) o << "    if (j > i) acc = neg_inf;\n";
  o << "    sc[j] = acc;\n"
    << "    local_max = fmaxf(local_max, acc);\n"
    << "  }\n"
    << "  red[t] = local_max;\n"
    << "  __syncthreads();\n"
    << "  for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
    << "    if (t < w) red[t] = fmaxf(red[t], red[t + w]);\n"
    << "    __syncthreads();\n"
    << "  }\n"
    << "  const float m = red[0];\n"
    << "  float local_sum = 0.f;\n"
    << "  for (int j = t; j < " << cols << "; j += blockDim.x) {\n"
    << "    const float e = m == neg_inf ? 0.f : expf(sc[j] - m);\n"
    << "    sc[j] = e;\n"
    << "    local_sum += e;\n"
    << "  }\n"
    << "  red[blockDim.x + t] = local_sum;\n"
    << "  __syncthreads();\n"
    << "  for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
    << "    if (t < w) red[blockDim.x + t] += red[blockDim.x + t + w];\n"
    << "    __syncthreads();\n"
    << "  }\n"
    << "  const float inv = 1.f / red[blockDim.x];\n"
    << "  if (t == 0) { " << lse_store(s, "m", "red[blockDim.x]") << "  }\n"
    << "  for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "    float acc = 0.f;\n"
    << "    for (int j = 0; j < " << cols << "; ++j) acc += sc[j] * " << load("v", s.v, "j", "d")
    << ";\n"
    << "    " << store("out", s.out, "i", "d", "acc * inv") << "\n"
    << "  }\n"
    << "}\n";
  return o.str();
}

}  // namespace fxscope::gpu
