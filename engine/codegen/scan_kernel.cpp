// Scans (cumsum). A short scan (under kBlockScanLength elements) takes one thread a row, walking
// the scanned dimension in order. A longer one takes a block a row, as Inductor's scan kernel
// does (tl.associative_scan over the row's elements): each thread sums a contiguous chunk of the
// row, the block scans the chunks' sums, and each thread walks its chunk again from the sum of
// those before it. A thread walking 1,024 elements alone is a chain of dependent loads and adds
// (an MoE router's cumsum over [1024, 8] along the tokens: 8 threads, each 1,024 steps).

#include <algorithm>
#include <optional>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

// From this many elements a row a scan takes a block a row.
constexpr std::int64_t kBlockScanLength = 64;

}  // namespace

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
  const std::int64_t length = shape->sizes[dim];
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  // The scan's input at element J of ROW, added to ACC, and (where STORE) ACC written there.
  const auto step = [&](const std::string& acc, bool store) -> std::optional<Error> {
    Index row_idx = delinearize("row", outer);
    Index idx;
    for (std::size_t d = 0, o = 0; d < rank; ++d) {
      idx.dims.push_back(d == dim ? "j" : row_idx.dims[o++]);
    }
    auto v = em.value(node.args[0].as_node(), idx);
    if (!v) return v.error();
    em.line(acc + " += (" + t + ")(" + *v + ");");
    if (!store) return std::nullopt;
    auto st = store_statement(em, scan, idx, acc);
    if (!st) return st.error();
    em.line(*st);
    return std::nullopt;
  };
  const std::string summary = "scan " + std::to_string(rows) + " rows x " + std::to_string(length);
  if (length < kBlockScanLength) {
    em.open("for (" + ix + " row = " + ix + "(blockIdx.x) * blockDim.x + threadIdx.x; row < " +
            std::to_string(rows) + "; row += " + ix + "(gridDim.x) * blockDim.x) {");
    em.line(t + " acc = 0;");
    em.open("for (" + ix + " j = 0; j < " + std::to_string(length) + "; ++j) {");
    if (auto e = step("acc", true)) return *e;
    em.close();
    em.close();
    return finish_kernel(ctx, em, {128, 1, 1}, std::max<std::int64_t>(1, (rows + 127) / 128),
                         summary + ", a thread a row");
  }
  // A block a row: up to 256 threads (whole warps), each a chunk of the row.
  const int threads = static_cast<int>(std::min<std::int64_t>(256, (length + 31) / 32 * 32));
  const std::int64_t chunk = (length + threads - 1) / threads;
  em.open("for (" + ix + " row = blockIdx.x; row < " + std::to_string(rows) +
          "; row += gridDim.x) {");
  em.line("const " + ix + " first = " + ix + "(threadIdx.x) * " + std::to_string(chunk) + ";");
  em.line("const " + ix + " last = first + " + std::to_string(chunk) + " < " +
          std::to_string(length) + " ? first + " + std::to_string(chunk) + " : " +
          std::to_string(length) + ";");
  em.line(t + " part = 0;");
  em.open("for (" + ix + " j = first; j < last; ++j) {");
  if (auto e = step("part", false)) return *e;
  em.close();
  em.line(t + " acc = fx_block_inclusive_sum(part) - part;");
  em.open("for (" + ix + " j = first; j < last; ++j) {");
  if (auto e = step("acc", true)) return *e;
  em.close();
  em.close();
  return finish_kernel(ctx, em, {threads, 1, 1}, std::min<std::int64_t>(rows, 65535),
                       summary + ", a block a row");
}

}  // namespace fxscope::codegen
