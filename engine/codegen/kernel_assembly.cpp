// The parts every kernel builder shares: stores, the index type, and the final source text.

#include <algorithm>

#include "fxscope/codegen/cuda_prelude.h"
#include "kernel_context.h"

namespace fxscope::codegen {

using graph::NodeId;

Result<std::string> store_statement(ValueEmitter& emitter, NodeId node, const Index& idx,
                                    const std::string& value) {
  auto off = emitter.offset(node, idx);
  if (!off) return off.error();
  const std::string& dtype = emitter.graph().node(node).meta->dtype;
  std::string v = value;
  if (dtype == "f16") v = "fx_f2h(" + value + ")";
  if (dtype == "bf16") v = "fx_f2b(" + value + ")";
  if (dtype != "f16" && dtype != "bf16") v = "(" + storage_type(dtype) + ")(" + value + ")";
  return emitter.param_name(node) + "[" + *off + "] = " + v + ";";
}

std::string index_type(const KernelContext& ctx, std::int64_t iteration_numel) {
  // The largest element offset any buffer the kernel can touch is indexed at: its storage
  // extent. Those buffers are the group's nodes, the nodes they read, and what it writes.
  std::set<NodeId> touched(ctx.members.begin(), ctx.members.end());
  touched.insert(ctx.group.inputs.begin(), ctx.group.inputs.end());
  touched.insert(ctx.writes.begin(), ctx.writes.end());
  for (const NodeId m : ctx.members) {
    for (const NodeId a : ctx.graph.inputs(m)) touched.insert(a);
  }
  std::int64_t extent = iteration_numel;
  for (const NodeId n : touched) {
    const auto s = shape_of(ctx.graph.node(n), ctx.hints);
    if (!s) continue;
    std::int64_t e = 1;
    for (std::size_t d = 0; d < s->sizes.size(); ++d) e += (s->sizes[d] - 1) * s->strides[d];
    extent = std::max(extent, e);
  }
  return extent < (std::int64_t{1} << 31) - 1024 ? "int" : "fx_i64";
}

std::string vector_load_lines(const KernelContext& ctx, const ValueEmitter& emitter,
                              std::size_t first, int width, const std::string& index, int indent) {
  std::string out;
  const auto& vectors = emitter.vector_loads();
  for (std::size_t i = first; i < vectors.size(); ++i) {
    const auto& [node, var] = vectors[i];
    const std::string type = vector_type(ctx.graph.node(node).meta->dtype, width);
    out += std::string(static_cast<std::size_t>(indent), ' ') + "const " + type + " " + var +
           " = reinterpret_cast<const " + type + "*>(" + emitter.param_name(node) + ")[" + index +
           "];\n";
  }
  return out;
}

void assemble(const KernelContext& ctx, const ValueEmitter& emitter, const std::string& body,
              const std::string& header, const std::vector<KernelParam>& scratch,
              GeneratedKernel& kernel) {
  std::vector<std::string> sig;
  for (const NodeId n : emitter.loaded()) {
    // A buffer updated in place (a library call's result its epilogue rewrites) is one param,
    // the written one, which the loads read too.
    if (std::find(ctx.writes.begin(), ctx.writes.end(), n) != ctx.writes.end()) continue;
    const std::string& dtype = ctx.graph.node(n).meta->dtype;
    sig.push_back("const " + storage_type(dtype) + "* __restrict__ " + emitter.param_name(n));
    kernel.params.push_back({n, dtype, false, 0});
  }
  for (const NodeId n : ctx.writes) {
    const std::string& dtype = ctx.graph.node(n).meta->dtype;
    sig.push_back(storage_type(dtype) + "* __restrict__ " + emitter.param_name(n));
    kernel.params.push_back({n, dtype, true, 0});
  }
  for (const KernelParam& p : scratch) {
    const std::string name = "scratch_" + emitter.param_name(p.node).substr(2);
    const std::string type = storage_type(p.dtype) + "* __restrict__ ";
    sig.push_back(p.written ? type + name : "const " + type + name);
    kernel.params.push_back(p);
  }
  std::string src = "// fxscope: " + ctx.where + "\n// " + header + "\n";
  src += "// params: ";
  for (std::size_t i = 0; i < kernel.params.size(); ++i) {
    src += (i ? ", " : "") + ctx.graph.node(kernel.params[i].node).name +
           (kernel.params[i].scratch_elements ? " (scratch)" : "") +
           (kernel.params[i].written ? " (written)" : "");
  }
  src += "\n";
  src += cuda_prelude();
  src += "\nextern \"C\" __global__ void __launch_bounds__(" + std::to_string(kernel.block) + ")";
  if (kernel.cluster > 1) src += " __cluster_dims__(" + std::to_string(kernel.cluster) + ", 1, 1)";
  src += "\n" + ctx.entry + "(";
  for (std::size_t i = 0; i < sig.size(); ++i) src += (i ? ",\n    " : "") + sig[i];
  src += ") {\n" + body + "}\n";
  kernel.source = std::move(src);
}

GeneratedKernel finish_kernel(const KernelContext& ctx, ValueEmitter& emitter,
                              const LaunchConfig& config, std::int64_t grid, std::string summary,
                              const std::vector<KernelParam>& scratch, int cluster) {
  GeneratedKernel kernel;
  kernel.entry = ctx.entry;
  kernel.cluster = cluster;
  kernel.block = config.block;
  kernel.config = config;
  kernel.grid = grid;
  kernel.summary = std::move(summary);
  assemble(ctx, emitter, emitter.take_body(), kernel.summary, scratch, kernel);
  return kernel;
}

std::int64_t row_grid(std::int64_t rows, const LaunchConfig& config) {
  return std::clamp<std::int64_t>((rows + config.rows_per_block - 1) / config.rows_per_block, 1,
                                  132 * 32);
}

}  // namespace fxscope::codegen
