// Pointwise kernels: one thread per element (or per 16 bytes of contiguous elements read and
// written as one vector: float4, 8 halves), grid-stride over the group's iteration space, the
// shape of its first output.

#include <algorithm>

#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// Elements per thread moved as one vector: 16 bytes of the narrowest output, when every output
// is a contiguous f32, f16 or bf16 buffer whose size the width divides; 1 otherwise. Buffers are
// allocated 256-byte aligned and views (pointer offsets) are never read as vectors, so a vector
// index is always aligned.
int vector_width(const KernelContext& ctx, std::int64_t numel) {
  // A pooling window reads each output's neighbours, not a vector of contiguous elements: four
  // outputs a thread would quarter the threads of a latency-bound kernel (ResNet-50's stem
  // max-pool ran at 23% of a same-size copy with float4 outputs).
  for (const NodeId n : ctx.members) {
    if (ops::classify(ctx.graph.node(n).target).lowering == ops::Lowering::window) return 1;
  }
  int width = 0;
  for (const NodeId w : ctx.writes) {
    // A Scatter stores at the addresses its indices name, never a vector of contiguous elements.
    if (is_index_put(ctx.graph.node(w))) return 1;
    const auto s = shape_of(ctx.graph.node(w), ctx.hints);
    const std::string& dtype = ctx.graph.node(w).meta->dtype;
    if (!s || !s->contiguous() || (dtype != "f32" && dtype != "f16" && dtype != "bf16")) return 1;
    width = std::max(width, static_cast<int>(16 / ops::dtype_bytes(dtype)));
  }
  return width > 0 && numel % width == 0 ? width : 1;
}

// The index of a tensor of SHAPE at lane LANE of vector IV (position IV * WIDTH + LANE). A dim
// whose inner extent the width divides is the same for every lane, so the compiler shares its
// loads and math across the lanes (a per-channel scale is read once per vector, not per lane).
Index lane_index(const Shape& shape, const std::string& iv, int width, int lane) {
  const std::string w = std::to_string(width);
  const std::string linear = iv + " * " + w + " + " + std::to_string(lane);
  Index idx = delinearize(linear, shape.sizes);
  std::int64_t inner = 1;
  for (std::size_t d = shape.sizes.size(); d-- > 0;) {
    const std::int64_t size = shape.sizes[d];
    bool outer = true;
    for (std::size_t k = 0; k < d; ++k) outer = outer && shape.sizes[k] == 1;
    if (size != 1 && inner % width == 0) {
      const std::int64_t q = inner / width;
      const std::string e = q == 1 ? iv : "(" + iv + " / " + std::to_string(q) + ")";
      idx.dims[d] = outer ? e : "(" + e + " % " + std::to_string(size) + ")";
    } else if (size != 1 && inner == 1 && size % width == 0 && !outer) {
      idx.dims[d] = "(" + iv + " % " + std::to_string(size / width) + ") * " + w + " + " +
                    std::to_string(lane);
    }
    inner *= size;
  }
  return idx;
}

// Whether some dim of SHAPE takes lane_index's general form (neither the same for every lane nor
// lane-affine): a broadcast operand indexed through it is read at a position of its own by each
// lane, behind a division (a channel of a 7x7 plane).
bool lanes_index_apart(const Shape& shape, int width) {
  std::int64_t inner = 1;
  for (std::size_t d = shape.sizes.size(); d-- > 0;) {
    const std::int64_t size = shape.sizes[d];
    bool outer = true;
    for (std::size_t k = 0; k < d; ++k) outer = outer && shape.sizes[k] == 1;
    const bool shared = inner % width == 0;
    // Innermost: lane_index's "(iv % q) * w + lane", or the plain position of a 1-d tensor.
    const bool affine = inner == 1 && (size % width == 0 || outer);
    if (size != 1 && !shared && !affine) return true;
    inner *= size;
  }
  return false;
}

// The kernel with CONFIG (WIDTH: the vector width the outputs allow); LANES_APART tells whether
// the vector form read some buffer once a lane.
Result<GeneratedKernel> pointwise_with(const KernelContext& ctx, LaunchConfig config, int width,
                                       bool& lanes_apart) {
  if (ctx.writes.empty()) return make_error(ctx.where + ": writes no buffer");
  // Each store's iteration space: its buffer's shape, or a Scatter's indexed shape (the values').
  std::vector<Shape> shapes;
  std::vector<std::optional<ScatterShape>> scatters;
  for (const NodeId w : ctx.writes) {
    if (is_index_put(ctx.graph.node(w))) {
      auto sc = scatter_shape(ctx.graph, w, ctx.hints);
      if (!sc) return make_error(ctx.where + ": " + sc.error().message);
      shapes.push_back(Shape{sc->indexed, {}});
      scatters.push_back(std::move(*sc));
      continue;
    }
    auto s = shape_of(ctx.graph.node(w), ctx.hints);
    if (!s) {
      return make_error(ctx.where + ": output " + ctx.graph.node(w).name +
                        " has no tensor annotation");
    }
    shapes.push_back(std::move(*s));
    scatters.emplace_back();
  }
  std::int64_t numel = 0;
  for (const Shape& s : shapes) numel = std::max(numel, s.numel());
  // Stores over fewer elements than the kernel's (a Scatter beside the fill of a buffer of its
  // own) are guarded by their own count; only stores of one size are written as vectors.
  bool one_size = true;
  for (const Shape& s : shapes) one_size = one_size && s.numel() == numel;
  const bool vector = width > 1 && config.items_per_thread == width && one_size;
  const int items = vector ? width : std::max(1, config.items_per_thread);
  const std::string ix = index_type(ctx, numel);
  const std::string iv = "i" + std::to_string(items);
  const std::string out_dtype = ctx.graph.node(ctx.writes.front()).meta->dtype;

  ValueEmitter em(ctx.graph, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  for (int k = 0; k < items; ++k) {
    // Vectorised: thread t owns elements W*t..W*t+W-1, all lanes in one scope so that values
    // the lanes share are computed once. Scalar: ITEMS elements a block apart, so that each load
    // instruction of a warp stays coalesced.
    const std::string linear = vector
                                   ? iv + " * " + std::to_string(items) + " + " + std::to_string(k)
                                   : (items == 1 ? "i" : "i" + std::to_string(k));
    if (!vector && items > 1) {
      em.open("if (const " + ix + " " + linear + " = i + " + std::to_string(k) + " * " +
              std::to_string(config.block) + "; " + linear + " < " + std::to_string(numel) + ") {");
    } else if (!vector) {
      em.open("{");
    }
    if (vector) em.set_vector_lane(linear, k, numel);
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      // Every store walks the first output's memory order: outputs of its sizes in another
      // layout pay the strided access that one of them must.
      const Index idx = vector ? lane_index(shapes[w], iv, items, k)
                        : shapes[w].sizes == shapes[0].sizes && !scatters[0]
                            ? delinearize_in_memory_order(linear, shapes[0])
                            : delinearize(linear, shapes[w].sizes);
      const bool fewer = shapes[w].numel() < numel;
      if (fewer) em.open("if (" + linear + " < " + std::to_string(shapes[w].numel()) + ") {");
      if (scatters[w]) {
        if (auto e = emit_scatter(em, *scatters[w], idx)) return *e;
        if (fewer) em.close();
        continue;
      }
      auto v = em.value(ctx.writes[w], idx);
      if (!v) return v.error();
      if (vector) {
        const std::string& dtype = ctx.graph.node(ctx.writes[w]).meta->dtype;
        std::string stored = "(float)(" + *v + ")";
        if (dtype == "f16") stored = "fx_f2h(" + *v + ")";
        if (dtype == "bf16") stored = "fx_f2b(" + *v + ")";
        em.line("out" + std::to_string(w) + ".v[" + std::to_string(k) + "] = " + stored + ";");
      } else {
        auto st = store_statement(em, ctx.writes[w], idx, *v);
        if (!st) return st.error();
        em.line(*st);
      }
      if (fewer) em.close();
    }
    if (!vector) em.close();
  }
  lanes_apart = vector && em.lanes_read_apart() &&
                std::any_of(shapes.begin(), shapes.end(),
                            [&](const Shape& s) { return lanes_index_apart(s, items); });
  const std::string inner = em.take_body();
  std::string body;
  const std::string n = std::to_string(numel);
  const std::string what = vector ? (out_dtype == "f32" && items == 4
                                         ? std::string("float4")
                                         : std::to_string(items) + " x " + out_dtype + " vectors")
                                  : std::string();
  if (vector) {
    body +=
        "  // " + what + " per thread: every buffer indexed by the flat position is contiguous.\n";
    body += "  for (" + ix + " " + iv + " = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; " +
            iv + " < " + std::to_string(numel / items) + "; " + iv + " += " + ix +
            "(gridDim.x) * blockDim.x) {\n";
    body += vector_load_lines(ctx, em, 0, items, iv, 4);
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      body += "    " + vector_type(ctx.graph.node(ctx.writes[w]).meta->dtype, items) + " out" +
              std::to_string(w) + ";\n";
    }
    body += inner;
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      const std::string type = vector_type(ctx.graph.node(ctx.writes[w]).meta->dtype, items);
      body += "    reinterpret_cast<" + type + "*>(" + em.param_name(ctx.writes[w]) + ")[" + iv +
              "] = out" + std::to_string(w) + ";\n";
    }
    body += "  }\n";
  } else {
    const std::string step = std::to_string(static_cast<std::int64_t>(config.block) * items);
    body += "  for (" + ix + " i = " + ix + "(blockIdx.x) * " + step + " + threadIdx.x; i < " + n +
            "; i += " + ix + "(gridDim.x) * " + step + ") {\n";
    body += inner;
    body += "  }\n";
  }
  GeneratedKernel kernel;
  kernel.entry = ctx.entry;
  kernel.block = config.block;
  kernel.config = config;
  const std::int64_t per_block = static_cast<std::int64_t>(config.block) * items;
  // Enough blocks to fill an H200 many times over; beyond that the grid-stride loop takes over.
  kernel.grid = std::clamp<std::int64_t>((numel + per_block - 1) / per_block, 1, kSMs * 64);
  kernel.summary = "pointwise " + n + " x " + out_dtype + ", " +
                   std::to_string(em.loaded().size()) + " reads " +
                   std::to_string(ctx.writes.size()) + " writes" + (vector ? ", " + what : "");
  assemble(ctx, em, body, "pointwise over " + n + " elements" + (vector ? ", " + what : ""), {},
           kernel);
  return kernel;
}

}  // namespace

Result<GeneratedKernel> pointwise_kernel(const KernelContext& ctx) {
  if (ctx.writes.empty()) return make_error(ctx.where + ": writes no buffer");
  const auto first = shape_of(ctx.graph.node(ctx.writes.front()), ctx.hints);
  if (!first) return make_error(ctx.where + ": its output has no tensor annotation");
  if (auto staged = staged_pool_kernel(ctx)) return std::move(*staged);
  // vector_width gives 1 for a group with a Scatter, so the first output's size does for it.
  const int width = vector_width(ctx, first->numel());
  bool lanes_apart = false;
  if (!ctx.default_config) return pointwise_with(ctx, ctx.config, width, lanes_apart);
  auto vector = pointwise_with(ctx, {256, width, 1}, width, lanes_apart);
  // A vector whose lanes each read a broadcast operand of their own (a batch norm's four
  // per-channel numbers over 7x7 planes: 32 loads and 8 square roots a thread) does the scalar
  // form's work on a quarter of its threads; the scalar form is the default then. max-autotune
  // still times both.
  if (!vector || !lanes_apart) return vector;
  return pointwise_with(ctx, {256, 1, 1}, width, lanes_apart);
}

}  // namespace fxscope::codegen
