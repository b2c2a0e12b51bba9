// aten.nonzero(self) as generated code: the coordinates of self's nonzero elements in row-major
// order, int64 [n, ndim], n a count the data sets (an unbacked size, u0). One block of whole warps
// (up to 1,024 threads, no more than the elements need): each thread counts the nonzeros of a
// contiguous chunk of the elements, the block's scan of the counts (fx_block_inclusive_sum: a few
// shuffles a warp, where one thread walking every count in turn would take most of a small mask's
// time) gives each chunk its first row, then each thread stores its chunk's coordinates from its
// first row on, in the output's strides.
//
// The output is sized by the plan's value of n (the runtime binds it to the count a first run
// found, or to self's numel, its upper bound, while it looks): rows past the count are stored
// as -1, which a later index reads in bounds (a negative index counts from the end), and
// coordinates past the rows the output holds are not stored.

#include <algorithm>

#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {

using graph::NodeId;

bool is_nonzero(const graph::Node& node) {
  return ops::op_key(node.target) == "aten.nonzero";
}

Result<GeneratedKernel> nonzero_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  if (n.args.empty() || !n.args[0].is_node() || !n.meta)
    return op_error(ctx, n, "has no input or output");
  const NodeId x = n.args[0].as_node();
  const auto in = shape_of(g.node(x), ctx.hints);
  const auto out = shape_of(n, ctx.hints);
  if (!in || !out) return op_error(ctx, n, "has an operand without an annotation");
  const auto rank = static_cast<std::int64_t>(in->sizes.size());
  if (out->sizes.size() != 2 || out->sizes[1] != rank || n.meta->dtype != "i64") {
    return op_error(ctx, n, "needs an int64 output of [n, " + std::to_string(rank) + "]");
  }
  const std::int64_t numel = in->numel();
  const std::int64_t rows = out->sizes[0];
  constexpr int kBlock = 1024;
  const int threads =
      static_cast<int>(std::clamp<std::int64_t>((numel + 31) / 32 * 32, 32, kBlock));
  const LaunchConfig config = ctx.default_config ? LaunchConfig{threads, 1, 1} : ctx.config;
  if (config.block > kBlock) return op_error(ctx, n, "with a block over " + std::to_string(kBlock));
  // The block's scan takes whole warps; one thread (a host test's block) needs no scan.
  if (config.block != 1 && config.block % 32 != 0) {
    return op_error(ctx, n,
                    "with a block of " + std::to_string(config.block) +
                        " threads (the count's scan takes whole warps)");
  }
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(1);
  const std::string total = std::to_string(numel) + "LL";
  em.line("__shared__ long long found;  // the count, from the last thread");
  em.line("const long long chunk = (" + total + " + blockDim.x - 1) / blockDim.x;");
  em.line("const long long begin = (long long)threadIdx.x * chunk;");
  em.line("const long long end = begin + chunk < " + total + " ? begin + chunk : " + total + ";");
  const Index at = delinearize("i", in->sizes);
  em.line("long long count = 0;");
  em.open("for (long long i = begin; i < end; ++i) {");
  auto v = em.value(x, at);
  if (!v) return v.error();
  em.line("if ((" + *v + ") != 0) ++count;");
  em.close();
  if (config.block == 1) {
    em.line("long long row = 0;");
    em.line("found = count;");
  } else {
    em.line("long long row = fx_block_inclusive_sum(count) - count;  // this chunk's first row");
    em.line("if (threadIdx.x == blockDim.x - 1) found = row + count;");
    em.line("__syncthreads();  // the count known to every thread");
  }
  em.open("for (long long i = begin; i < end; ++i) {");
  auto v2 = em.value(x, at);
  if (!v2) return v2.error();
  em.line("if ((" + *v2 + ") == 0) continue;");
  em.open("if (row < " + std::to_string(rows) + "LL) {");
  for (std::int64_t d = 0; d < rank; ++d) {
    auto st = store_statement(em, node, Index{{"row", std::to_string(d)}, ""},
                              "(long long)(" + at.dims[static_cast<std::size_t>(d)] + ")");
    if (!st) return st.error();
    em.line(*st);
  }
  em.close();
  em.line("++row;");
  em.close();
  em.open("for (long long r = found + threadIdx.x; r < " + std::to_string(rows) +
          "LL; r += blockDim.x) {");
  for (std::int64_t d = 0; d < rank; ++d) {
    auto st = store_statement(em, node, Index{{"r", std::to_string(d)}, ""}, "-1LL");
    if (!st) return st.error();
    em.line(*st);
  }
  em.close();
  return finish_kernel(ctx, em, config, 1,
                       "nonzero of " + std::to_string(numel) + " elements into up to " +
                           std::to_string(rows) + " rows of " + std::to_string(rank) +
                           " coordinates, one block of " + std::to_string(config.block) +
                           " threads");
}

}  // namespace fxscope::codegen
