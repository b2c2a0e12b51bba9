// Pointwise kernels: one thread per element (or per 4 contiguous elements read and written as
// float4), grid-stride over the group's iteration space, the shape of its first output.

#include <algorithm>

#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// The index of WRITE at iteration position LINEAR: its own row-major position.
Index write_index(const Shape& shape, const std::string& linear) {
  return delinearize(linear, shape.sizes);
}

bool vectorisable(const KernelContext& ctx, std::int64_t numel) {
  if (numel % 4 != 0) return false;
  for (const NodeId w : ctx.writes) {
    const auto s = shape_of(ctx.graph.node(w), ctx.hints);
    if (!s || !s->contiguous() || ctx.graph.node(w).meta->dtype != "f32") return false;
  }
  return true;
}

}  // namespace

Result<GeneratedKernel> pointwise_kernel(const KernelContext& ctx) {
  if (ctx.writes.empty()) return make_error(ctx.where + ": writes no buffer");
  const auto first = shape_of(ctx.graph.node(ctx.writes.front()), ctx.hints);
  if (!first) return make_error(ctx.where + ": its output has no tensor annotation");
  const std::int64_t numel = first->numel();
  std::vector<Shape> shapes;
  for (const NodeId w : ctx.writes) {
    auto s = shape_of(ctx.graph.node(w), ctx.hints);
    if (!s || s->numel() != numel) {
      return make_error(ctx.where + ": outputs of different sizes (" + ctx.graph.node(w).name +
                        ")");
    }
    shapes.push_back(std::move(*s));
  }
  LaunchConfig config = ctx.config;
  if (ctx.default_config) config = {256, vectorisable(ctx, numel) ? 4 : 1, 1};
  const bool vector = config.items_per_thread == 4 && vectorisable(ctx, numel);
  const int items = vector ? 4 : std::max(1, config.items_per_thread);
  const std::string ix = index_type(ctx, numel);

  ValueEmitter em(ctx.graph, ctx.members, ctx.hints, ctx.where);
  em.set_indent(2);
  std::string stores;
  for (int k = 0; k < items; ++k) {
    // Vectorised: thread t owns elements 4t..4t+3. Scalar: ITEMS elements a block apart, so
    // that each load instruction of a warp stays coalesced.
    const std::string linear =
        vector ? "i4 * 4 + " + std::to_string(k) : (items == 1 ? "i" : "i" + std::to_string(k));
    if (!vector && items > 1) {
      em.open("if (const " + ix + " " + linear + " = i + " + std::to_string(k) + " * " +
              std::to_string(config.block) + "; " + linear + " < " + std::to_string(numel) + ") {");
    } else {
      em.open("{");
    }
    if (vector) em.set_vector_lane(linear, k, numel);
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      const Index idx = write_index(shapes[w], linear);
      auto v = em.value(ctx.writes[w], idx);
      if (!v) return v.error();
      if (vector) {
        em.line("out" + std::to_string(w) + "." + std::string(1, "xyzw"[k]) + " = " + *v + ";");
      } else {
        auto st = store_statement(em, ctx.writes[w], idx, *v);
        if (!st) return st.error();
        em.line(*st);
      }
    }
    em.close();
  }
  const std::string inner = em.take_body();
  std::string body;
  const std::string n = std::to_string(numel);
  if (vector) {
    body +=
        "  // float4 per thread: every buffer indexed by the flat position is contiguous f32.\n";
    body += "  for (" + ix + " i4 = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; i4 < " +
            std::to_string(numel / 4) + "; i4 += " + ix + "(gridDim.x) * blockDim.x) {\n";
    for (const auto& [node, var] : em.vector_loads()) {
      body += "    const fx_f4 " + var + " = reinterpret_cast<const fx_f4*>(" +
              em.param_name(node) + ")[i4];\n";
    }
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      body += "    fx_f4 out" + std::to_string(w) + ";\n";
    }
    body += inner;
    for (std::size_t w = 0; w < ctx.writes.size(); ++w) {
      body += "    reinterpret_cast<fx_f4*>(" + em.param_name(ctx.writes[w]) + ")[i4] = out" +
              std::to_string(w) + ";\n";
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
  kernel.grid = std::clamp<std::int64_t>((numel + per_block - 1) / per_block, 1, 132 * 64);
  kernel.summary = "pointwise " + n + " x " + ctx.graph.node(ctx.writes.front()).meta->dtype +
                   ", " + std::to_string(em.loaded().size()) + " reads " +
                   std::to_string(ctx.writes.size()) + " writes" + (vector ? ", float4" : "");
  assemble(ctx, em, body, "pointwise over " + n + " elements" + (vector ? ", float4" : ""), {},
           kernel);
  return kernel;
}

}  // namespace fxscope::codegen
