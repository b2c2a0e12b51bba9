// inductor_lookup_seed and inductor_random as C expressions. The random value of an element is
// keyed by the element's row-major linear index over the op's own sizes, so an eager kernel (one
// launch for the op) and a fused kernel (the op inlined into its consumers, possibly reached
// through views or at a float4 lane) evaluate Philox at the same counter.

#include "rng_value.h"

#include "arg_helpers.h"
#include "fxscope/codegen/rng.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::codegen {
namespace {

// The row-major linear index of IDX over SIZES: IDX's own when it carries one.
std::string linear_index(const Index& idx, const std::vector<std::int64_t>& sizes) {
  if (!idx.linear.empty()) return idx.linear;
  std::string lin;
  std::int64_t inner = 1;
  for (std::size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] != 1) {
      const std::string term =
          inner == 1 ? "(long long)(" + idx.dims[d] + ")"
                     : "(long long)(" + idx.dims[d] + ") * " + std::to_string(inner) + "LL";
      lin = lin.empty() ? term : term + " + " + lin;
    }
    inner *= sizes[d];
  }
  return lin.empty() ? "0LL" : lin;
}

Result<std::string> lookup_seed(ValueEmitter& e, const graph::Node& n) {
  if (n.args.size() < 2 || !n.args[0].is_node() ||
      n.args[1].kind() != graph::Argument::Kind::integer) {
    return make_error("expected (seeds, index) with a literal index");
  }
  const graph::NodeId seeds = n.args[0].as_node();
  const auto shape = shape_of(e.graph().node(seeds), e.hints());
  const std::int64_t k = n.args[1].as_int();
  if (!shape || shape->sizes.size() != 1 || k < 0 || k >= shape->sizes[0]) {
    return make_error("looks up seed " + std::to_string(k) + " outside its 1-d seeds buffer");
  }
  auto v = e.value(seeds, Index{{std::to_string(k)}, std::to_string(k)});
  if (!v) return v.error();
  return "(long long)(" + *v + ")";
}

Result<std::string> random(ValueEmitter& e, const graph::Node& n, const Index& idx) {
  if (n.args.size() < 3 || !n.args[1].is_node()) {
    return make_error("expected (size, seed, 'rand' or 'randn')");
  }
  const std::string& kind = n.args[2].text();
  if (kind != "rand" && kind != "randn") {
    return make_error("draws '" + kind + "'; fxscope generates 'rand' and 'randn'");
  }
  const auto shape = shape_of(n, e.hints());
  if (!shape || shape->sizes.size() != idx.dims.size()) {
    return make_error("has no tensor annotation of the rank it is indexed with");
  }
  auto seed = e.value(n.args[1].as_node(), Index{{}, "0"});
  if (!seed) return seed.error();
  return philox_expression(*seed, linear_index(idx, shape->sizes), kind == "randn");
}

bool is_eager_random(std::string_view base) {
  return base == "rand" || base == "randn" || base == "rand_like" || base == "randn_like";
}

// Eager's rand / randn (and their _like forms) carry no seed operand. Inductor's replace_random
// pass (torch/_inductor/fx_passes/replace_random.py) gives the K-th of a graph's random ops, in
// graph order, seed K of the one inductor_seeds buffer fuse_seed_creation_pass makes, and draws
// at the element's linear index. Eager's K-th random op draws from that same seed, so that eager
// and every compiled mode drop the same elements and their outputs compare.
Result<std::string> eager_random(ValueEmitter& e, graph::NodeId node, const Index& idx) {
  const graph::Node& n = e.graph().node(node);
  const auto shape = shape_of(n, e.hints());
  if (!shape || shape->sizes.size() != idx.dims.size()) {
    return make_error("has no tensor annotation of the rank it is indexed with");
  }
  std::size_t k = 0;
  for (graph::NodeId m = 0; m < node; ++m) {
    const graph::Node& other = e.graph().node(m);
    if (other.is_op() && is_eager_random(ops::op_base_name(other.target))) ++k;
  }
  const std::int64_t seed = rng_seed_values(e.run_seed(), 0, static_cast<std::int64_t>(k) + 1)[k];
  return philox_expression(std::to_string(seed) + "LL", linear_index(idx, shape->sizes),
                           ops::op_base_name(n.target).starts_with("randn"));
}

}  // namespace

bool is_rng_value_op(const graph::Node& node) {
  const std::string_view base = ops::op_base_name(node.target);
  return node.is_op() &&
         (base == "inductor_lookup_seed" || base == "inductor_random" || is_eager_random(base));
}

Result<std::string> rng_expression(ValueEmitter& emitter, graph::NodeId node, const Index& idx) {
  const graph::Node& n = emitter.graph().node(node);
  const std::string_view base = ops::op_base_name(n.target);
  if (base == "inductor_lookup_seed") return lookup_seed(emitter, n);
  if (is_eager_random(base)) return eager_random(emitter, node, idx);
  return random(emitter, n, idx);
}

}  // namespace fxscope::codegen
