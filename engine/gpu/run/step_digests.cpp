#include "run/step_digests.h"

#include <algorithm>

#include "fxscope/gpu/output_compare.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

StepDigests::StepDigests(const Executable& exe, const graph::Graph& graph,
                         const ops::SymbolHints& hints)
    : exe_(exe), graph_(graph), hints_(hints), computed_in_(computed_in_dtypes(graph)) {}

double StepDigests::terms_abs_sum(graph::NodeId n, std::int64_t numel) const {
  const graph::Node& node = graph_.node(n);
  if (!node.is_op()) return 0;
  const std::string_view op = ops::op_base_name(node.target);
  if (node.args.empty() || !node.args[0].is_node()) return 0;
  if (op == "convert_element_type" || ops::classify(node.target).lowering == ops::Lowering::view) {
    // A cast or a view of a sum holds the sum's elements: its terms are the sum's.
    const auto it = index_.find(node.args[0].as_node());
    if (it == index_.end()) return 0;
    const ValueDigest& of = values_[it->second];
    return of.numel == numel ? of.terms_abs_sum : 0;
  }
  if (op != "sum" && op != "mean") return 0;
  // The terms: the input, through the casts and views between it and a stored value.
  graph::NodeId in = node.args[0].as_node();
  while (!index_.count(in)) {
    const graph::Node& m = graph_.node(in);
    if (!m.is_op() || m.args.empty() || !m.args[0].is_node()) return 0;
    const std::string_view base = ops::op_base_name(m.target);
    if (base != "convert_element_type" && ops::classify(m.target).lowering != ops::Lowering::view) {
      return 0;
    }
    in = m.args[0].as_node();
  }
  const ValueDigest& terms = values_[index_.at(in)];
  if (terms.numel == 0 || numel == 0) return 0;
  // A mean divides each output's sum by the elements it averages.
  return op == "mean"
             ? terms.abs_sum * static_cast<double>(numel) / static_cast<double>(terms.numel)
             : terms.abs_sum;
}

void StepDigests::operator()(std::size_t step) {
  const StepPlan& plan = exe_.steps().at(step);
  for (const graph::NodeId n : plan.writes) {
    // A convolution without the bias its epilogue adds holds no value to compare with eager's.
    if (std::find(plan.partial_writes.begin(), plan.partial_writes.end(), n) !=
        plan.partial_writes.end()) {
      continue;
    }
    const auto bytes = exe_.read_value(n);
    if (!bytes) continue;
    ValueDigest d = digest_value(*graph_.node(n).meta, bytes->data(), hints_);
    d.node = graph_.node(n).name;
    d.step = step;
    d.group = plan.group;
    d.group_name = plan.group_name;
    d.kernel = plan.name;
    d.computed_in = computed_in_[n];
    d.terms_abs_sum = terms_abs_sum(n, d.numel);
    const auto [it, fresh] = index_.try_emplace(n, values_.size());
    if (fresh) {
      values_.push_back(std::move(d));
    } else {
      values_[it->second] = std::move(d);
    }
  }
}

}  // namespace fxscope::gpu
