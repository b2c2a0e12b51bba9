// aten.histc(self, bins, min, max) as generated code, SummaryOps.cu's arithmetic: an element x
// with min <= x <= max falls in bin (int)((x - min) * bins / (max - min)), computed in the
// input's type (integer division for integer inputs), the last bin also taking max; others (NaN
// included) are not counted. One block: the bins zeroed, a barrier, then every element counted
// by an atomic add (the runtime allocates outputs without clearing them).
//
// min == max asks ATen for the data's own range (a reduction before the count): not generated,
// and said so.

#include <algorithm>

#include "arg_helpers.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

using graph::NodeId;

// Argument I as a number (an integer or a float literal), FALLBACK when absent.
double number_at(const graph::Node& n, std::size_t i, double fallback) {
  if (i >= n.args.size()) return fallback;
  const graph::Argument& a = n.args[i];
  if (a.kind() == graph::Argument::Kind::integer) return static_cast<double>(a.as_int());
  if (a.kind() == graph::Argument::Kind::floating) return a.as_float();
  return fallback;
}

}  // namespace

bool is_histc(const graph::Node& node) {
  return ops::op_base_name(node.target) == "histc";
}

Result<GeneratedKernel> histc_kernel(const KernelContext& ctx, NodeId node) {
  const graph::Graph& g = ctx.graph;
  const graph::Node& n = g.node(node);
  if (n.args.empty() || !n.args[0].is_node() || !n.meta)
    return op_error(ctx, n, "has no input or output");
  const NodeId x = n.args[0].as_node();
  const auto in = shape_of(g.node(x), ctx.hints);
  if (!in || !g.node(x).meta) return op_error(ctx, n, "has no annotation of its input");
  const std::string& dtype = g.node(x).meta->dtype;
  const bool integral =
      dtype == "i32" || dtype == "i64" || dtype == "i16" || dtype == "i8" || dtype == "u8";
  // The atomic adds CUDA has: int and float (long long through its unsigned form).
  const std::string out_dtype = n.meta->dtype;
  if (out_dtype != "f32" && out_dtype != "i32" && out_dtype != "i64") {
    return op_error(
        ctx, n, "counting into " + out_dtype + " is not generated (no atomic add of that type)");
  }
  if (!integral && dtype != "f32") return op_error(ctx, n, "on " + dtype + " is not generated");
  const std::int64_t bins = int_at(n, 1, 100);
  const double lo = number_at(n, 2, 0.0);
  const double hi = number_at(n, 3, 0.0);
  if (bins < 1) return op_error(ctx, n, "with " + std::to_string(bins) + " bins");
  if (lo == hi) {
    return op_error(
        ctx, n, "with min == max takes its range from the data (a reduction first): not generated");
  }
  if (lo > hi) return op_error(ctx, n, "with min > max");
  // The bounds in the input's type, as ATen converts them (min.to<input_t>()).
  const std::string type = integral ? "long long" : "float";
  const auto literal = [&](double v) {
    return integral ? std::to_string(static_cast<long long>(v)) + "LL" : float_literal(v);
  };
  const std::string min_v = literal(lo);
  const std::string max_v = literal(hi);
  const std::int64_t block = 256;
  const LaunchConfig config =
      ctx.default_config ? LaunchConfig{static_cast<int>(block), 1, 1} : ctx.config;
  ValueEmitter em(g, ctx.members, ctx.hints, ctx.where, ctx.run_seed);
  em.set_indent(2);
  const std::string out = em.param_name(node);
  const std::string ctype = storage_type(out_dtype);
  em.open("for (int b = threadIdx.x; b < " + std::to_string(bins) + "; b += blockDim.x) {");
  em.line(out + "[b] = (" + ctype + ")0;");
  em.close();
  em.line("__syncthreads();  // every bin is zero before any element is counted");
  em.open("for (long long i = threadIdx.x; i < " + std::to_string(in->numel()) +
          "LL; i += blockDim.x) {");
  auto v = em.value(x, delinearize("i", in->sizes));
  if (!v) return v.error();
  em.line("const " + type + " x = (" + type + ")(" + *v + ");");
  em.open("if (x >= " + min_v + " && x <= " + max_v + ") {");
  em.line("int bin = (int)((x - " + min_v + ") * " + std::to_string(bins) + " / (" + max_v + " - " +
          min_v + "));");
  em.line("if (bin == " + std::to_string(bins) + ") bin -= 1;");
  if (out_dtype == "i64") {
    em.line("atomicAdd((unsigned long long*)(" + out + " + bin), 1ULL);");
  } else {
    em.line("atomicAdd(" + out + " + bin, (" + ctype + ")1);");
  }
  em.close();
  em.close();
  return finish_kernel(ctx, em, config, 1,
                       "histc " + std::to_string(in->numel()) + " x " + dtype + " into " +
                           std::to_string(bins) + " bins, one block");
}

}  // namespace fxscope::codegen
