#include "fxscope/gpu/attention_kernel.h"

#include <cmath>
#include <sstream>

#include "fxscope/codegen/cuda_prelude.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {
namespace {

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

std::string offset(const char* name, const AttentionTensor& t, const char* row, const char* col) {
  std::ostringstream s;
  s << "(b * " << t.strides[0] << "LL + h * " << t.strides[1] << "LL + (long long)(" << row
    << ") * " << t.strides[2] << "LL + (long long)(" << col << ") * " << t.strides[3] << "LL)";
  return std::string(name) + "[" + s.str() + "]";
}

// The element of T at (ROW, COL) as a float expression.
std::string load(const char* name, const AttentionTensor& t, const char* row, const char* col) {
  const std::string at = offset(name, t, row, col);
  if (t.dtype == "bf16") return "fx_b2f(" + at + ")";
  if (t.dtype == "f16") return "fx_h2f(" + at + ")";
  return at;
}

// The statement storing the float expression VALUE into OUT at (ROW, COL).
std::string store(const AttentionTensor& out, const char* row, const char* col,
                  const std::string& value) {
  const std::string at = offset("out", out, row, col);
  if (out.dtype == "bf16") return at + " = fx_f2b(" + value + ");";
  if (out.dtype == "f16") return at + " = fx_f2h(" + value + ");";
  return at + " = " + value + ";";
}

std::string c_type(const AttentionTensor& t) {
  return t.dtype == "bf16" ? "fx_bf16" : t.dtype == "f16" ? "fx_half" : "float";
}

// The kernel's signature: each tensor in its own dtype.
std::string signature(const AttentionSpec& s, const std::string& head) {
  const AttentionTensor& bias = s.bias ? *s.bias : s.q;
  return head + "fxscope_attention(const " + c_type(s.q) + "* __restrict__ q, const " +
         c_type(s.k) + "* __restrict__ k, const " + c_type(s.v) + "* __restrict__ v, const " +
         c_type(bias) + "* __restrict__ bias, " + c_type(s.out) + "* __restrict__ out) {\n";
}

}  // namespace

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
  if (is_attention_backward_target(n.target)) {
    return make_error(where + ": " + std::string(ops::op_key(n.target)) +
                      " (attention's gradients) has no runtime in the engine");
  }
  if (n.args.size() < 3) return make_error(where + ": expected query, key and value");
  AttentionSpec spec;
  auto q = tensor_of(g, n.args[0], hints, where);
  if (!q) return q.error();
  auto k = tensor_of(g, n.args[1], hints, where);
  if (!k) return k.error();
  auto v = tensor_of(g, n.args[2], hints, where);
  if (!v) return v.error();
  spec.q = *q;
  spec.k = *k;
  spec.v = *v;
  const bool efficient = n.target.find("efficient") != std::string::npos;
  // efficient: (q, k, v, attn_bias, compute_log_sumexp, dropout_p, is_causal); flash and cudnn
  // take no bias: (q, k, v, dropout_p, is_causal, ...).
  if (efficient && n.args.size() > 3 && n.args[3].is_node()) {
    auto b = tensor_of(g, n.args[3], hints, where);
    if (!b) return b.error();
    spec.bias = *b;
  }
  const std::size_t causal_at = efficient ? 6 : 4;
  if (n.args.size() > causal_at && n.args[causal_at].kind() == graph::Argument::Kind::boolean) {
    spec.causal = n.args[causal_at].as_bool();
  }
  for (const auto& [key, value] : n.kwargs) {
    if (key == "is_causal" && value.kind() == graph::Argument::Kind::boolean) {
      spec.causal = value.as_bool();
    }
  }
  spec.scale = float_kwarg(n, "scale").value_or(1.0 / std::sqrt(static_cast<double>(q->sizes[3])));
  const auto users = g.users();
  for (const graph::NodeId u : users[id]) {
    const graph::Node& un = g.node(u);
    if (un.target == "operator.getitem" && un.args.size() == 2 &&
        un.args[1].kind() == graph::Argument::Kind::integer && un.args[1].as_int() == 0) {
      auto o = tensor_of(g, graph::Argument::node(u), hints, where);
      if (!o) return o.error();
      spec.out = *o;
      return spec;
    }
  }
  return make_error(where + ": no getitem [0] takes the attention's output");
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
  return tiled_shared_bytes(spec) <= kMaxTiledShared;
}

int attention_threads(const AttentionSpec& spec) {
  return spec.tiled ? 32 * kTileWarps : kRowThreads;
}

long long attention_blocks(const AttentionSpec& spec) {
  const long long heads = spec.q.sizes[0] * spec.q.sizes[1];
  const long long rows = spec.q.sizes[2];
  return spec.tiled ? heads * ((rows + kTileRows - 1) / kTileRows) : heads * rows;
}

std::size_t attention_shared_bytes(const AttentionSpec& spec) {
  if (spec.tiled) return tiled_shared_bytes(spec);
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
    << "      acc *= " << s.scale << "f;\n";
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
    << "    for (int d = lane; d < " << dim << "; d += 32) {\n"
    << "      float acc = 0.f;\n"
    << "      for (int j = 0; j < " << cols << "; ++j) acc += p[j] * vs[j * " << dim << " + d];\n"
    << "      " << store(s.out, "i", "d", "acc * inv") << "\n"
    << "    }\n"
    << "    __syncwarp();\n"
    << "  }\n"
    << "}\n";
  return o.str();
}

}  // namespace

std::string attention_source(const AttentionSpec& s) {
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
    << "    acc *= " << s.scale << "f;\n";
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
    << "  for (int d = t; d < " << dim << "; d += blockDim.x) {\n"
    << "    float acc = 0.f;\n"
    << "    for (int j = 0; j < " << cols << "; ++j) acc += sc[j] * " << load("v", s.v, "j", "d")
    << ";\n"
    << "    " << store(s.out, "i", "d", "acc * inv") << "\n"
    << "  }\n"
    << "}\n";
  return o.str();
}

}  // namespace fxscope::gpu
