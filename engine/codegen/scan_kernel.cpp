// Scans (cumsum): one thread per row walks the scanned dimension in order. The scans in the
// samples are short (attention-mask positions), where a sequential walk per row is the
// simplest correct choice.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

Result<GeneratedKernel> scan_kernel(const KernelContext& ctx) {
  const graph::Graph& g = ctx.graph;
  graph::NodeId scan = 0;
  bool found = false;
  for (const graph::NodeId n : ctx.members) {
    if (ops::classify(g.node(n).target).lowering == ops::Lowering::scan) {
      scan = n;
      found = true;
    }
  }
  const graph::Node& node = g.node(scan);
  if (!found || ops::op_base_name(node.target) != "cumsum") {
    return make_error(ctx.where + ": only cumsum scans are generated");
  }
  for (const graph::NodeId w : ctx.writes) {
    if (w != scan) return make_error(ctx.where + ": a scan group also writes " + g.node(w).name);
  }
  const auto shape = shape_of(node, ctx.hints);
  if (!shape || node.args.empty() || !node.args[0].is_node()) {
    return make_error(ctx.where + ": cumsum needs an annotated input and output");
  }
  const std::size_t rank = shape->sizes.size();
  const std::int64_t dim_arg = int_at(node, 1, 0);
  const auto dim = static_cast<std::size_t>(wrap_dim(dim_arg, rank));
  if (rank == 0 || dim >= rank) return make_error(ctx.where + ": cumsum over a missing dim");
  std::vector<std::int64_t> outer;
  for (std::size_t d = 0; d < rank; ++d) {
    if (d != dim) outer.push_back(shape->sizes[d]);
  }
  std::int64_t rows = 1;
  for (const std::int64_t s : outer) rows *= s;
  const std::string ix = index_type(ctx, shape->numel());
  const std::string t = compute_type(node.meta->dtype);
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.open("for (" + ix + " row = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; row < " +
          std::to_string(rows) + "; row += " + ix + "(gridDim.x) * blockDim.x) {");
  em.line(t + " acc = 0;");
  em.open("for (int j = 0; j < " + std::to_string(shape->sizes[dim]) + "; ++j) {");
  Index row_idx = delinearize("row", outer);
  Index idx;
  for (std::size_t d = 0, o = 0; d < rank; ++d) {
    idx.dims.push_back(d == dim ? "j" : row_idx.dims[o++]);
  }
  auto v = em.value(node.args[0].as_node(), idx);
  if (!v) return v.error();
  em.line("acc += (" + t + ")(" + *v + ");");
  auto st = store_statement(em, scan, idx, "acc");
  if (!st) return st.error();
  em.line(*st);
  em.close();
  em.close();
  return finish_kernel(
      ctx, em, {128, 1, 1}, std::max<std::int64_t>(1, (rows + 127) / 128),
      "scan " + std::to_string(rows) + " rows x " + std::to_string(shape->sizes[dim]));
}

}  // namespace fxscope::codegen
