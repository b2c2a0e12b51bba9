// aten.sort and aten.topk as generated code: a block per row (the rows along DIM), the row's
// values and their positions in shared memory, sorted there by a bitonic network whose phases
// are block-stride loops between barriers (every pair of a phase is disjoint, so any number of
// threads, one included, does the same work), then the first K (topk) or all (sort) stored with
// their int64 positions.
//
// The order is ATen's: ascending, or descending for sort's descending and topk's largest; NaN
// above every number (last ascending, first descending); equal values keep their positions'
// order, as a stable sort does. topk returns its K sorted whether or not `sorted` asks (ATen
// leaves the order unspecified then).

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// The longest row the shared-memory sort takes (keys and positions: 2048 x 12 bytes at most).
constexpr std::int64_t kMaxSortRow = 2048;

std::optional<NodeId> getitem_of(const KernelContext& ctx, NodeId node, std::int64_t k) {
  for (const NodeId w : ctx.writes) {
    const graph::Node& n = ctx.graph.node(w);
    if (w != node && n.args.size() >= 2 && n.args[0].is_node() && n.args[0].as_node() == node &&
        n.args[1].kind() == graph::Argument::Kind::integer && n.args[1].as_int() == k) {
      return w;
    }
  }
  return std::nullopt;
}

// The sizes of sort NODE's values: its input's.
std::vector<std::int64_t> at_sizes(const graph::Graph& g, NodeId node, const KernelContext& ctx) {
  const graph::Node& n = g.node(node);
  if (n.args.empty() || !n.args[0].is_node()) return {};
  const auto in = shape_of(g.node(n.args[0].as_node()), ctx.hints);
  return in ? in->sizes : std::vector<std::int64_t>{};
}

// Argument I, or keyword NAME, as a bool (FALLBACK when neither is given).
bool flag(const graph::Node& n, std::size_t i, std::string_view name, bool fallback) {
  if (const graph::Argument* a = kwarg(n, name)) return a->as_bool();
  if (i < n.args.size() && n.args[i].kind() == graph::Argument::Kind::boolean) {
    return n.args[i].as_bool();
  }
  return fallback;
}

std::int64_t int_arg(const graph::Node& n, std::size_t i, std::string_view name,
                     std::int64_t fallback) {
  if (const graph::Argument* a = kwarg(n, name)) return a->as_int();
  return int_at(n, i, fallback);
}

// Inductor's Sort kernel (ir.Sort, a persistent reduction over the row) takes the consumers the
// planner fused after it: each other store of the group is computed at the sorted element the
// thread holds (the planner fuses only loads at the address the sort stored), reading the
// sorted values and positions from registers; a Scatter (index_put) stores through them.
std::optional<Error> sort_epilogue(const KernelContext& ctx, ValueEmitter& em, NodeId node,
                                   const Index& at) {
  const graph::Graph& g = ctx.graph;
  std::vector<NodeId> others;
  for (const NodeId w : ctx.writes) {
    const graph::Node& n = g.node(w);
    const bool own = n.args.size() >= 2 && n.args[0].is_node() && n.args[0].as_node() == node;
    if (!own) others.push_back(w);
  }
  if (others.empty()) return std::nullopt;
  for (NodeId u = 0; u < g.size(); ++u) {
    const graph::Node& n = g.node(u);
    if (n.args.size() < 2 || !n.args[0].is_node() || n.args[0].as_node() != node ||
        n.args[1].kind() != graph::Argument::Kind::integer || !n.meta) {
      continue;
    }
    const std::int64_t k = n.args[1].as_int();
    const std::string var = k == 0 ? "fx_sorted" : "fx_position";
    em.line("const " + compute_type(n.meta->dtype) + " " + var + " = (" +
            compute_type(n.meta->dtype) + ")(" + (k == 0 ? "s_key[j]" : "s_pos[j]") + ");");
    em.bind(u, var);
  }
  for (const NodeId w : others) {
    if (is_index_put(g.node(w))) {
      auto sc = scatter_shape(g, w, ctx.hints);
      if (!sc) return make_error(ctx.where + ": " + sc.error().message);
      if (sc->indexed != at_sizes(g, node, ctx)) {
        return make_error(ctx.where + ": the scatter " + g.node(w).name +
                          " does not iterate over the sorted elements");
      }
      if (auto e = emit_scatter(em, *sc, at)) return e;
      continue;
    }
    const auto s = shape_of(g.node(w), ctx.hints);
    if (!s || s->sizes != at_sizes(g, node, ctx)) {
      return make_error(ctx.where + ": output " + g.node(w).name +
                        " is not of the sorted values' shape");
    }
    auto v = em.value(w, at);
    if (!v) return v.error();
    auto st = store_statement(em, w, at, *v);
    if (!st) return st.error();
    em.line(*st);
  }
  return std::nullopt;
}

}  // namespace

bool is_sort_or_topk(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return base == "sort" || base == "topk";
}

Result<GeneratedKernel> sort_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  const bool topk = ops::op_base_name(n.target) == "topk";
  const std::string op = std::string(ops::op_key(n.target));
  const auto fail = [&](const std::string& why) -> Result<GeneratedKernel> {
    return make_error(ctx.where + ": " + op + " " + why);
  };
  if (n.args.empty() || !n.args[0].is_node()) return fail("has no input tensor");
  const NodeId x = n.args[0].as_node();
  const auto in = shape_of(g.node(x), ctx.hints);
  if (!in || !g.node(x).meta) return fail("has no annotation of its input");
  const std::string& dtype = g.node(x).meta->dtype;
  const std::string key_type = compute_type(dtype);
  if (dtype == "bool" || key_type.empty()) return fail("on " + dtype + " is not generated");
  const std::size_t rank = std::max<std::size_t>(in->sizes.size(), 1);
  // sort(self, dim=-1, descending=False); sort.stable(self, *, stable, dim=-1, descending=False);
  // topk(self, k, dim=-1, largest=True, sorted=True).
  const bool stable_overload = n.target.find(".stable") != std::string::npos;
  const std::int64_t dim = wrap_dim(
      topk ? int_arg(n, 2, "dim", -1) : int_arg(n, stable_overload ? 99 : 1, "dim", -1), rank);
  const bool descending =
      topk ? flag(n, 3, "largest", true) : flag(n, stable_overload ? 99 : 2, "descending", false);
  std::vector<std::int64_t> sizes = in->sizes;
  if (sizes.empty()) sizes = {1};
  if (dim < 0 || dim >= static_cast<std::int64_t>(sizes.size()))
    return fail("has no dim " + std::to_string(dim));
  const std::int64_t len = sizes[static_cast<std::size_t>(dim)];
  const std::int64_t kept = topk ? int_arg(n, 1, "k", -1) : len;
  if (len < 1 || kept < 0 || kept > len)
    return fail("keeps " + std::to_string(kept) + " of rows of " + std::to_string(len));
  if (len > kMaxSortRow) {
    return fail("sorts rows of " + std::to_string(len) +
                " elements: the generated sort takes rows of at most " +
                std::to_string(kMaxSortRow) + " (shared memory)");
  }
  if (in->numel() >= (std::int64_t{1} << 31)) return fail("over 2^31 elements is not generated");
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  std::int64_t rows = 1;
  for (const std::int64_t s : sizes) rows *= s;
  rows /= len;
  std::vector<std::int64_t> out_sizes = sizes;
  out_sizes[static_cast<std::size_t>(dim)] = kept;
  std::int64_t padded = 1;
  while (padded < len) padded *= 2;
  const std::int64_t block = std::clamp<std::int64_t>(padded / 2, 32, 256);
  const LaunchConfig config =
      ctx.default_config ? LaunchConfig{static_cast<int>(block), 1, 1} : ctx.config;
  const std::string P = std::to_string(padded);
  const std::string L = std::to_string(len);
  const std::string I = std::to_string(inner);

  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  em.line("__shared__ " + key_type + " s_key[" + P + "];");
  em.line("__shared__ int s_pos[" + P + "];  // -1: padding, after every element");
  // Whether the element in slot A goes before the one in slot B.
  const std::string nan_a = key_type == "float" || key_type == "double" ? "ka != ka" : "false";
  const std::string nan_b = key_type == "float" || key_type == "double" ? "kb != kb" : "false";
  em.line("auto before = [&](int a, int b) -> bool {");
  em.line("  const int pa = s_pos[a], pb = s_pos[b];");
  em.line("  if (pa < 0 || pb < 0) return pb < 0 && pa >= 0;");
  em.line("  const " + key_type + " ka = s_key[a], kb = s_key[b];");
  em.line("  const bool na = " + nan_a + ", nb = " + nan_b + ";");
  em.line("  if (na || nb) return na && nb ? pa < pb : " + std::string(descending ? "na" : "nb") +
          ";");
  em.line("  if (ka != kb) return ka " + std::string(descending ? ">" : "<") + " kb;");
  em.line("  return pa < pb;");
  em.line("};");
  em.open("for (int row = blockIdx.x; row < " + std::to_string(rows) + "; row += gridDim.x) {");
  em.line("const int outer = row / " + I + ", in_row = row % " + I + ";");
  em.open("for (int j = threadIdx.x; j < " + P + "; j += blockDim.x) {");
  em.open("if (j < " + L + ") {");
  em.line("const int at = (outer * " + L + " + j) * " + I + " + in_row;");
  auto v = em.value(x, delinearize("at", sizes));
  if (!v) return v.error();
  em.line("s_key[j] = " + *v + ";");
  em.line("s_pos[j] = j;");
  em.close();
  em.line("else s_pos[j] = -1;");
  em.close();
  em.line("__syncthreads();");
  em.open("for (int size = 2; size <= " + P + "; size <<= 1) {");
  em.open("for (int stride = size >> 1; stride > 0; stride >>= 1) {");
  em.open("for (int t = threadIdx.x; t < " + std::to_string(padded / 2) + "; t += blockDim.x) {");
  em.line("const int lo = 2 * t - (t & (stride - 1)), hi = lo + stride;");
  em.line("const bool swap = (lo & size) == 0 ? before(hi, lo) : before(lo, hi);");
  em.open("if (swap) {");
  em.line("const " + key_type + " k = s_key[lo];");
  em.line("s_key[lo] = s_key[hi];");
  em.line("s_key[hi] = k;");
  em.line("const int p = s_pos[lo];");
  em.line("s_pos[lo] = s_pos[hi];");
  em.line("s_pos[hi] = p;");
  em.close();
  em.close();
  em.line("__syncthreads();");
  em.close();
  em.close();
  em.open("for (int j = threadIdx.x; j < " + std::to_string(kept) + "; j += blockDim.x) {");
  em.line("const int at = (outer * " + std::to_string(kept) + " + j) * " + I + " + in_row;");
  const Index out_at = delinearize("at", out_sizes);
  for (const auto& [k, value] : {std::pair<std::int64_t, std::string>{0, "s_key[j]"},
                                 std::pair<std::int64_t, std::string>{1, "s_pos[j]"}}) {
    const auto out = getitem_of(ctx, node, k);
    if (!out) continue;
    auto st = store_statement(em, *out, out_at, value);
    if (!st) return st.error();
    em.line(*st);
  }
  if (auto e = sort_epilogue(ctx, em, node, out_at)) return *e;
  em.close();
  em.line("__syncthreads();  // the row's slots are read before the next row fills them");
  em.close();
  const std::int64_t grid = std::clamp<std::int64_t>(rows, 1, kSMs * 32);
  return finish_kernel(ctx, em, config, grid,
                       std::string(topk ? "topk " + std::to_string(kept) + " of " : "sort ") +
                           std::to_string(rows) + " rows of " + L + " x " + dtype +
                           (descending ? ", descending" : ", ascending") +
                           ", bitonic in shared memory, a block per row");
}

}  // namespace fxscope::codegen
