// Layout copies: the planner's groups that write a buffer of no graph node. The copy lands in a
// scratch buffer (KernelParam::scratch_elements) named after the node it copies.

#include <algorithm>

#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

Result<GeneratedKernel> copy_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  const bool channels_last = ctx.group.note == "layout copy to channels-last";
  const bool mask = ctx.group.note == "attention mask copied to an aligned layout";
  graph::NodeId source = 0;
  std::set<graph::NodeId> members = ctx.members;
  if (channels_last) {
    if (ctx.group.inputs.size() != 1)
      return make_error(ctx.where + ": a layout copy reads one buffer");
    source = ctx.group.inputs.front();
  } else if (mask) {
    // The mask is the attention call's fourth argument; the call itself runs elsewhere.
    bool found = false;
    for (const graph::NodeId n : ctx.group.nodes) {
      const graph::Node& node = g.node(n);
      if (ops::classify(node.target).op_class != ops::OpClass::attention) continue;
      if (node.args.size() < 4 || !node.args[3].is_node()) continue;
      source = node.args[3].as_node();
      members.erase(n);
      found = true;
    }
    if (!found) return make_error(ctx.where + ": no attention mask to copy");
  } else {
    return make_error(ctx.where + ": writes no buffer");
  }
  const auto shape = shape_of(g.node(source), ctx.hints);
  if (!shape)
    return make_error(ctx.where + ": copies " + g.node(source).name + ", which has no annotation");
  if (channels_last && shape->sizes.size() != 4) {
    return make_error(ctx.where + ": a channels-last copy of a rank-" +
                      std::to_string(shape->sizes.size()) + " tensor");
  }
  const std::int64_t numel = shape->numel();
  const std::string ix = index_type(ctx, numel);
  ValueEmitter em(g, members, ctx.hints, ctx.where);
  em.open("for (" + ix + " i = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; i < " +
          std::to_string(numel) + "; i += " + ix + "(gridDim.x) * blockDim.x) {");
  const Index idx = delinearize("i", shape->sizes);
  auto v = em.value(source, idx);
  if (!v) return v.error();
  std::string dst = "i";
  if (channels_last) {
    // NCHW position (n, c, h, w) stored at ((n * H + h) * W + w) * C + c.
    const auto& s = shape->sizes;
    dst = "((" + idx.dims[0] + ") * " + std::to_string(s[2]) + " + " + idx.dims[2] + ") * " +
          std::to_string(s[3] * s[1]) + " + (" + idx.dims[3] + ") * " + std::to_string(s[1]) +
          " + " + idx.dims[1];
  }
  const std::string& dtype = g.node(source).meta->dtype;
  std::string stored = "(" + storage_type(dtype) + ")(" + *v + ")";
  if (dtype == "f16") stored = "fx_f2h(" + *v + ")";
  if (dtype == "bf16") stored = "fx_f2b(" + *v + ")";
  em.line("scratch_" + em.param_name(source).substr(2) + "[" + dst + "] = " + stored + ";");
  em.close();
  return finish_kernel(ctx, em, {256, 1, 1},
                       std::clamp<std::int64_t>((numel + 255) / 256, 1, 132 * 64),
                       std::string(channels_last ? "channels-last copy " : "attention mask copy ") +
                           std::to_string(numel) + " x " + dtype,
                       {{source, dtype, true, numel}});
}

}  // namespace fxscope::codegen
