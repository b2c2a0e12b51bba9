// Max pooling staged in shared memory: a block takes R output rows of one plane, computes the
// input rows under them once each (the group's prologue, a batch norm + ReLU, included) into
// shared memory, then each output's window is read from there.
//
// Why: the per-output form computes each input element once per window it falls in and reads
// it from L2 again for each output row whose window covers it. ResNet's stem (3x3, stride 2,
// 112x112 -> 56x56) reads 1.5x its input from L2 and normalises each element 2.25 times, which
// kept it at 64-69% of a copy of its bytes in its place in default mode. Staged 4 rows a
// block, the 9 input rows under them are read once each (1.125x), 16 bytes a thread, and
// normalised once (bench_memory_kernels resnet, L2-warm: 2.46 against 2.72 us).

#include <algorithm>
#include <optional>

#include "arg_helpers.h"
#include "kernel_context.h"
#include "pool_window.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// Static shared memory a block may have without opting in.
constexpr std::int64_t kSharedBytes = 48 * 1024;

struct StagedPool {
  NodeId pool = 0;
  NodeId x = 0;  // the pooled input
  PoolWindow w;
  Shape in;   // x: (..., H, W)
  Shape out;  // the pool's output: (..., OH, OW)
};

// The group's one max pooling, when every buffer it writes is one of the pool's outputs (its
// value or offsets, of the pool's output shape) and the pool's input is annotated.
std::optional<StagedPool> find_pool(const KernelContext& ctx) {
  std::optional<NodeId> pool;
  for (const NodeId n : ctx.members) {
    if (ops::classify(ctx.graph.node(n).target).lowering != ops::Lowering::window) continue;
    if (pool || !is_max_pool(ctx.graph.node(n))) return std::nullopt;
    pool = n;
  }
  if (!pool) return std::nullopt;
  const graph::Node& p = ctx.graph.node(*pool);
  if (p.args.empty() || !p.args[0].is_node()) return std::nullopt;
  StagedPool s;
  s.pool = *pool;
  s.x = p.args[0].as_node();
  const auto w = max_pool_window(p);
  const auto in = shape_of(ctx.graph.node(s.x), ctx.hints);
  if (!w || !in || in->sizes.size() < 3) return std::nullopt;
  s.w = *w;
  s.in = *in;
  if (ctx.writes.empty()) return std::nullopt;
  for (const NodeId n : ctx.writes) {
    const graph::Node& g = ctx.graph.node(n);
    const bool item = ops::op_key(g.target) == "operator.getitem" && !g.args.empty() &&
                      g.args[0].is_node() && g.args[0].as_node() == s.pool;
    const auto shape = shape_of(g, ctx.hints);
    if (!item || !shape || shape->sizes.size() != s.in.sizes.size()) return std::nullopt;
    if (n == ctx.writes.front()) s.out = *shape;
    if (shape->sizes != s.out.sizes) return std::nullopt;
  }
  for (std::size_t d = 0; d + 2 < s.in.sizes.size(); ++d) {
    if (s.in.sizes[d] != s.out.sizes[d]) return std::nullopt;
  }
  return s;
}

// Input rows under R output rows.
std::int64_t rows_under(const StagedPool& s, std::int64_t r) {
  return (r - 1) * s.w.sh + (s.w.kh - 1) * s.w.dh + 1;
}

}  // namespace

std::optional<Result<GeneratedKernel>> staged_pool_kernel(const KernelContext& ctx) {
  const auto found = find_pool(ctx);
  if (!found) return std::nullopt;
  const StagedPool& s = *found;
  const std::size_t rank = s.in.sizes.size();
  const std::int64_t in_h = s.in.sizes[rank - 2], in_w = s.in.sizes[rank - 1];
  const std::int64_t out_h = s.out.sizes[rank - 2], out_w = s.out.sizes[rank - 1];
  std::int64_t planes = 1;
  for (std::size_t d = 0; d + 2 < rank; ++d) planes *= s.out.sizes[d];
  // A staged row holds the padding too, as -inf columns, so that a window reads nine fixed
  // offsets from its corner with no test of where it is: LEFT columns before the image (a
  // multiple of 4, so that the image's float4s stay aligned), then the image, then what the last
  // window reaches past it, rounded up to a float4.
  const auto round4 = [](std::int64_t v) { return (v + 3) / 4 * 4; };
  const std::int64_t left = round4(s.w.pw);
  const std::int64_t reach = (out_w - 1) * s.w.sw - s.w.pw + (s.w.kw - 1) * s.w.dw + 1;
  const std::int64_t pitch = round4(left + std::max(in_w, reach));
  // Four output rows a block unless max-autotune asks otherwise (rows_per_block 1 is the
  // per-output form); fewer when the plane is shorter or the rows would not fit.
  LaunchConfig config = ctx.default_config ? LaunchConfig{256, 1, 4} : ctx.config;
  if (config.rows_per_block <= 1) return std::nullopt;
  std::int64_t r = std::min<std::int64_t>(config.rows_per_block, out_h);
  while (r > 1 && rows_under(s, r) * pitch * 4 > kSharedBytes) --r;
  if (r <= 1 || rows_under(s, r) * pitch * 4 > kSharedBytes) return std::nullopt;
  config.rows_per_block = static_cast<int>(r);
  config.items_per_thread = 1;
  const std::int64_t rows = rows_under(s, r);
  const std::int64_t tiles = (out_h + r - 1) / r;
  // 16 bytes a thread while staging when the rows are whole float4s; the loads of contiguous
  // buffers of the input's size then come as one vector (the emitter's lanes).
  const int width = in_w % 4 == 0 && s.in.contiguous() ? 4 : 1;
  const std::string ix = index_type(ctx, s.in.numel());
  const std::string p = std::to_string(pitch);
  const auto str = [](std::int64_t v) { return std::to_string(v); };

  ValueEmitter em(ctx.graph, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(1);
  em.line("__shared__ __align__(16) float fx_rows[" + str(rows * pitch) + "];");
  // The padding columns are the same for every tile: written once, before the first barrier.
  em.open("for (int e = threadIdx.x; e < " + str(rows * (pitch - in_w)) + "; e += blockDim.x) {");
  em.line("const int c = e % " + str(pitch - in_w) + ";");
  em.line("fx_rows[e / " + str(pitch - in_w) + " * " + p + " + (c < " + str(left) + " ? c : c + " +
          str(in_w) + ")] = -FX_INF;");
  em.close();
  em.open("for (" + ix + " tile = blockIdx.x; tile < " + str(planes * tiles) +
          "; tile += gridDim.x) {");
  em.line("const " + ix + " plane = tile / " + str(tiles) + ";");
  em.line("const int r0 = int(tile % " + str(tiles) + ") * " + str(r) + ";");
  em.line("const int ih0 = r0 * " + str(s.w.sh) + " - " + str(s.w.ph) + ";");
  std::vector<std::int64_t> lead(s.out.sizes.begin(), s.out.sizes.end() - 2);
  // The leading dims of the plane; no linear index (that of the plane is no tensor's).
  Index plane_idx = delinearize("plane", lead);
  plane_idx.linear.clear();

  // Stage: the image's columns of input rows ih0 .. ih0 + rows - 1 (blockDim.x-strided, so that
  // one thread can also do a block's work: the host test runs it so), rows outside it as -inf.
  em.open("for (int e = threadIdx.x; e < " + str(rows * in_w / width) + "; e += blockDim.x) {");
  em.line("const int row = e / " + str(in_w / width) + ", iw = (e % " + str(in_w / width) + ") * " +
          str(width) + ";");
  em.line("const int ih = ih0 + row;");
  em.line("float fx_in[" + str(width) + "];");
  for (int k = 0; k < width; ++k) em.line("fx_in[" + str(k) + "] = -FX_INF;");
  em.open("if (ih >= 0 && ih < " + str(in_h) + ") {");
  em.line("const " + ix + " fx_at = (plane * " + str(in_h) + " + ih) * " + str(in_w) + " + iw;");
  const std::size_t loads_at = em.body_size();
  const std::size_t vectors_before = em.vector_loads().size();
  for (int k = 0; k < width; ++k) {
    Index at = plane_idx;
    at.dims.push_back("ih");
    at.dims.push_back(k ? "(iw + " + str(k) + ")" : "iw");
    if (width > 1) {
      at.linear = "fx_at + " + str(k);
      em.set_vector_lane(at.linear, k, s.in.numel());
    }
    auto v = em.value(s.x, at);
    if (!v) return Result<GeneratedKernel>(v.error());
    em.line("fx_in[" + str(k) + "] = (float)(" + *v + ");");
  }
  em.set_vector_lane("", -1, 0);
  // The vector loads, first in the branch (after fx_at), where the lanes read them.
  em.insert_body(loads_at,
                 vector_load_lines(ctx, em, vectors_before, width, "fx_at / " + str(width), 8));
  em.close();
  if (width == 4) {
    em.line("*reinterpret_cast<float4*>(&fx_rows[row * " + p + " + " + str(left) +
            " + iw]) = make_float4(fx_in[0], fx_in[1], fx_in[2], fx_in[3]);");
  } else {
    em.line("fx_rows[row * " + p + " + " + str(left) + " + iw] = fx_in[0];");
  }
  em.close();
  em.line("__syncthreads();");

  // Each output of the tile: its window, read from the staged rows at fixed offsets from its
  // corner, in the per-output form's order (kh, then kw). Unless the window's position is
  // written, a max that keeps NaN in one instruction takes the values.
  bool offsets = false;
  for (const NodeId w : ctx.writes) offsets = offsets || int_at(ctx.graph.node(w), 1, 0) == 1;
  em.open("for (int o = threadIdx.x; o < " + str(r * out_w) + "; o += blockDim.x) {");
  em.line("const int oh = r0 + o / " + str(out_w) + ", ow = o % " + str(out_w) + ";");
  // A last tile short of R rows (OH not a multiple of R) has outputs past the plane to skip.
  em.open(out_h % r == 0 ? std::string("{") : "if (oh < " + str(out_h) + ") {");
  em.line("const float* fx_window = fx_rows + (o / " + str(out_w) + ") * " + str(s.w.sh * pitch) +
          " + ow * " + str(s.w.sw) + " + " + str(left - s.w.pw) + ";");
  em.line("float fx_max = -FX_INF;");
  if (offsets) em.line("long long fx_max_at = 0;");
  em.line("#pragma unroll");
  em.open("for (int kh = 0; kh < " + str(s.w.kh) + "; ++kh) {");
  em.line("#pragma unroll");
  em.open("for (int kw = 0; kw < " + str(s.w.kw) + "; ++kw) {");
  em.line("const float v = fx_window[kh * " + str(s.w.dh * pitch) + " + kw * " + str(s.w.dw) +
          "];");
  if (offsets) {
    em.line("const int ih = oh * " + str(s.w.sh) + " - " + str(s.w.ph) + " + kh * " + str(s.w.dh) +
            ";");
    em.line("const int iw = ow * " + str(s.w.sw) + " - " + str(s.w.pw) + " + kw * " + str(s.w.dw) +
            ";");
    em.line(pool_update("v", "fx_max", "fx_max_at", s.w, in_w));
  } else {
    em.line("fx_max = fx_max_nan(fx_max, v);");
  }
  em.close();
  em.close();
  Index out = plane_idx;
  out.dims.push_back("oh");
  out.dims.push_back("ow");
  em.set_pool_result(s.pool, out, "fx_max", offsets ? "fx_max_at" : "0LL");
  for (const NodeId w : ctx.writes) {
    auto v = em.value(w, out);
    if (!v) return Result<GeneratedKernel>(v.error());
    auto st = store_statement(em, w, out, *v);
    if (!st) return Result<GeneratedKernel>(st.error());
    em.line(*st);
  }
  em.close();
  em.close();
  // A block with another tile to do waits until every window of this one is read.
  const std::int64_t grid = std::clamp<std::int64_t>(planes * tiles, 1, kSMs * 64);
  if (planes * tiles > grid) em.line("__syncthreads();  // the next tile overwrites the rows");
  em.close();

  const std::string dtype = ctx.graph.node(ctx.writes.front()).meta->dtype;
  std::string summary = "pointwise " + str(s.out.numel()) + " x " + dtype + ", " +
                        str(static_cast<std::int64_t>(em.loaded().size())) + " reads " +
                        str(static_cast<std::int64_t>(ctx.writes.size())) + " writes, " + str(r) +
                        " output rows a block over " + str(rows) + kStagedRows +
                        (width == 4 ? " (float4)" : "");
  return finish_kernel(ctx, em, config, grid, std::move(summary));
}

}  // namespace fxscope::codegen
