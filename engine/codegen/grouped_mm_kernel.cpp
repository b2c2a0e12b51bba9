// transformers' grouped_mm_fallback(input, weight, offs) as generated code: the rows of input are
// sorted by group, offs[g] the end of group g's rows (a cumulative count), and rows
// [offs[g-1], offs[g]) are multiplied by weight[g] (K x N); rows past the last offset stay zero,
// as the op's zero-filled output leaves them. A thread per output element finds its row's group
// (the first whose end passes the row) and sums its dot product in float (double for f64), read
// through each operand's strides (the weight is a transposed view of the experts' parameters).

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/alu_cost.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

using graph::NodeId;

bool is_grouped_mm(const graph::Node& node) {
  return ops::is_grouped_mm(node.target);
}

Result<GeneratedKernel> grouped_mm_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  // offs may be passed by keyword (the AOT graph keeps the call as the model wrote it).
  const graph::Argument* offs_arg = n.args.size() > 2 ? &n.args[2] : kwarg(n, "offs");
  if (n.args.size() < 2 || !n.args[0].is_node() || !n.args[1].is_node() || offs_arg == nullptr ||
      !offs_arg->is_node() || !n.meta) {
    return op_error(ctx, n, "needs input, weight and offs tensors");
  }
  const NodeId x = n.args[0].as_node();
  const NodeId w = n.args[1].as_node();
  const NodeId offs = offs_arg->as_node();
  const auto xs = shape_of(g.node(x), ctx.hints);
  const auto ws = shape_of(g.node(w), ctx.hints);
  const auto os = shape_of(g.node(offs), ctx.hints);
  const auto out = shape_of(n, ctx.hints);
  if (!xs || !ws || !os || !out) return op_error(ctx, n, "has an operand without an annotation");
  if (xs->sizes.size() != 2 || ws->sizes.size() != 3 || os->sizes.size() != 1 ||
      out->sizes.size() != 2) {
    return op_error(ctx, n, "takes a 2-d input, a 3-d weight and 1-d offsets");
  }
  const std::int64_t m = xs->sizes[0];
  const std::int64_t k = xs->sizes[1];
  const std::int64_t groups = ws->sizes[0];
  const std::int64_t cols = ws->sizes[2];
  if (ws->sizes[1] != k || os->sizes[0] != groups || out->sizes[0] != m || out->sizes[1] != cols) {
    return op_error(ctx, n,
                    "with sizes that do not agree (input [" + std::to_string(m) + ", " +
                        std::to_string(k) + "], weight [" + std::to_string(groups) + ", " +
                        std::to_string(ws->sizes[1]) + ", " + std::to_string(cols) + "])");
  }
  const std::string acc_type = n.meta->dtype == "f64" ? "double" : "float";
  const std::int64_t numel = m * cols;
  const LaunchConfig config = ctx.default_config ? LaunchConfig{256, 1, 1} : ctx.config;
  const std::int64_t grid =
      std::clamp<std::int64_t>((numel + config.block - 1) / config.block, 1, kSMs * 32);
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  em.open("for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < " +
          std::to_string(numel) + "LL; i += (long long)gridDim.x * blockDim.x) {");
  em.line("const long long row = i / " + std::to_string(cols) + "LL;");
  em.line("const long long col = i % " + std::to_string(cols) + "LL;");
  em.line("int group = -1;");
  em.open("for (int e = " + std::to_string(groups - 1) + "; e >= 0; --e) {");
  auto end = em.value(offs, Index{{"e"}, "e"});
  if (!end) return end.error();
  em.line("if (row < (long long)(" + *end + ")) group = e;");
  em.close();
  em.line(acc_type + " acc = (" + acc_type + ")0;");
  em.open("if (group >= 0) {");
  em.open("for (long long kk = 0; kk < " + std::to_string(k) + "LL; ++kk) {");
  auto a = em.value(x, Index{{"row", "kk"}, ""});
  if (!a) return a.error();
  auto b = em.value(w, Index{{"group", "kk", "col"}, ""});
  if (!b) return b.error();
  em.line("acc += (" + acc_type + ")(" + *a + ") * (" + acc_type + ")(" + *b + ");");
  em.close();
  em.close();
  auto store = store_statement(em, node, Index{{"row", "col"}, "i"}, "acc");
  if (!store) return store.error();
  em.line(*store);
  em.close();
  return finish_kernel(ctx, em, config, grid,
                       "grouped mm: " + std::to_string(m) + " rows of " + std::to_string(k) +
                           " over " + std::to_string(groups) + " groups' " + std::to_string(k) +
                           " x " + std::to_string(cols) + " weights, a thread per output element");
}

}  // namespace fxscope::codegen
