#include "run/step_digests.h"

#include <algorithm>

#include "fxscope/gpu/output_compare.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::gpu {

StepDigests::StepDigests(const Executable& exe, const graph::Graph& graph,
                         const ops::SymbolHints& hints)
    : exe_(exe), graph_(graph), hints_(hints), computed_in_(computed_in_dtypes(graph)) {}

double StepDigests::terms_abs_sum(graph::NodeId n, std::int64_t numel) const {
  return gpu::terms_abs_sum(graph_, n, numel, [&](graph::NodeId m) -> const ValueDigest* {
    const auto it = index_.find(m);
    return it == index_.end() ? nullptr : &values_[it->second];
  });
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
