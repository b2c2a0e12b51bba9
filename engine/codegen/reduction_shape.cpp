// Reads a reduction's dims from its arguments, per ATen signature.

#include "reduction_shape.h"

#include "arg_helpers.h"
#include "fxscope/ops/adaptive_pool.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/ops/reduction_layout.h"
#include "value_emitter.h"

namespace fxscope::codegen {

bool is_reduction(const graph::Node& n) {
  // An adaptive pooling to more than 1x1 is a window over its input, not a reduction.
  return n.is_op() && ops::reduces(ops::classify(n.target).lowering) &&
         !ops::adaptive_pool_windowed(n);
}

Result<ReductionShape> reduction_shape(const graph::Graph& graph, graph::NodeId node,
                                       const ops::SymbolHints& hints) {
  const graph::Node& n = graph.node(node);
  const std::string where = n.name + " (" + std::string(ops::op_key(n.target)) + ")";
  if (n.args.empty() || !n.args[0].is_node()) return make_error(where + ": no input tensor");
  ReductionShape r;
  r.node = node;
  r.input = n.args[0].as_node();
  const auto in = shape_of(graph.node(r.input), hints);
  if (!in) return make_error(where + ": its input has no tensor annotation");
  r.input_sizes = in->sizes;
  const std::string base(ops::op_base_name(n.target));
  std::vector<std::int64_t> dims;
  bool all = false;
  if (base == "sum" || base == "mean" || base == "amax" || base == "amin" || base == "prod" ||
      base == "any" || base == "all" || base == "var_mean" || base == "var" || base == "argmax" ||
      base == "argmin" || base == "prepare_softmax_online") {
    const graph::Argument* dim_kw = kwarg(n, "dim");
    if (n.args.size() > 1 && !n.args[1].is_none()) {
      dims = ints_of(n.args[1]);
    } else if (dim_kw && !dim_kw->is_none()) {
      dims = ints_of(*dim_kw);
    }
    all = dims.empty();
  } else if ((base == "max" || base == "min") && n.args.size() == 1 && n.kwargs.empty()) {
    all = true;  // max.default / min.default: the one largest (smallest) element, a 0-d tensor
  } else if ((base == "max" || base == "min") && n.args.size() >= 2 &&
             n.args[1].kind() == graph::Argument::Kind::integer) {
    dims = {n.args[1].as_int()};  // max.dim(x, dim, keepdim): the values and their indices
    r.values_and_indices = true;
  } else if (base == "_adaptive_avg_pool2d" || base == "adaptive_avg_pool2d") {
    const std::vector<std::int64_t> out = ints_at(n, 1);
    if (out.size() != 2 || out[0] != 1 || out[1] != 1) {
      return make_error(where + ": only a 1x1 adaptive pooling is generated");
    }
    dims = {-2, -1};
  } else {
    return make_error(where + ": not a reduction fxscope can generate");
  }
  static const std::vector<std::pair<std::string, Combine>> kCombines = {
      {"sum", Combine::sum},
      {"mean", Combine::mean},
      {"prod", Combine::prod},
      {"amax", Combine::max},
      {"amin", Combine::min},
      {"max", Combine::max},
      {"min", Combine::min},
      {"any", Combine::any},
      {"all", Combine::all},
      {"var_mean", Combine::welford},
      {"var", Combine::welford},
      {"argmax", Combine::argmax},
      {"argmin", Combine::argmin},
      {"prepare_softmax_online", Combine::softmax},
      {"_adaptive_avg_pool2d", Combine::mean},
      {"adaptive_avg_pool2d", Combine::mean}};
  for (const auto& [name, c] : kCombines) {
    if (name == base) r.combine = c;
  }
  if (r.values_and_indices) r.combine = base == "max" ? Combine::argmax : Combine::argmin;
  if (const graph::Argument* c = kwarg(n, "correction")) {
    r.correction = c->kind() == graph::Argument::Kind::integer ? static_cast<double>(c->as_int())
                                                               : c->as_float();
  } else if (n.args.size() > 2 && n.args[2].kind() == graph::Argument::Kind::boolean) {
    r.correction = n.args[2].as_bool() ? 1.0 : 0.0;  // var_mean.dim(x, dims, unbiased)
  } else if (base == "var_mean" || base == "var") {
    r.correction = 1.0;  // unbiased by default
  }
  r.reduced.assign(in->sizes.size(), all);
  for (const std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, in->sizes.size());
    if (w < 0 || static_cast<std::size_t>(w) >= in->sizes.size()) {
      if (in->sizes.empty()) continue;  // a 0-d input: nothing to reduce
      return make_error(where + ": reduces dim " + std::to_string(d) + " of a rank-" +
                        std::to_string(in->sizes.size()) + " tensor");
    }
    r.reduced[static_cast<std::size_t>(w)] = true;
  }
  for (std::size_t d = 0; d < in->sizes.size(); ++d) {
    (r.reduced[d] ? r.rnumel : r.rows) *= in->sizes[d];
  }
  r.trailing = ops::reduces_trailing_dims(in->sizes, r.reduced);
  return r;
}

}  // namespace fxscope::codegen
