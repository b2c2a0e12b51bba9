#include "fxscope/report/run_result_comparison.h"

#include <algorithm>
#include <utility>

#include "fxscope/report/run_attribution.h"

namespace fxscope::report {
namespace {

std::vector<KernelDelta> sorted_by_delta(std::vector<KernelDelta> rows, bool wins,
                                         std::size_t count) {
  std::erase_if(
      rows, [wins](const KernelDelta& r) { return wins ? r.delta_us() >= 0 : r.delta_us() <= 0; });
  std::stable_sort(rows.begin(), rows.end(), [wins](const KernelDelta& x, const KernelDelta& y) {
    return wins ? x.delta_us() < y.delta_us() : x.delta_us() > y.delta_us();
  });
  if (rows.size() > count) rows.resize(count);
  return rows;
}

}  // namespace

ModeSide side_of(const RunMode& measured) {
  return {measured, true};
}

ModeComparison compare_modes(ModeSide a, ModeSide b) {
  ModeComparison out;
  // B's kernels are the groups A's time lands on, by the rule the heat overlay and `compare`
  // follow; what lands on no kernel of B is A's alone.
  std::vector<AttributionGroup> groups;
  for (const RunKernel& k : b.run.kernels) {
    if (k.nodes.empty()) {
      out.b_unmatched_us += k.us;
      continue;
    }
    // Placed by nodes alone: a kernel's name in one mode says nothing of the other's kernels.
    groups.push_back({{}, k.nodes, {}});
    // The group (Inductor's name, extern_kernels.mm) rather than a library kernel's mangled
    // name: what the plan calls it, and readable.
    out.rows.push_back({k.group.empty() ? k.name : k.group, k.nodes, 0, k.us});
  }
  const RunAttribution attribution = attribute_run(a.run, groups);
  for (std::size_t i = 0; i < out.rows.size(); ++i) out.rows[i].a_us = attribution.groups[i].us;
  out.a_unmatched_us = attribution.unattributed_us;
  if (!attribution.outside_nodes.empty()) {
    KernelDelta only_a{"only in " + a.run.mode, attribution.outside_nodes, attribution.outside_us,
                       0};
    std::sort(only_a.nodes.begin(), only_a.nodes.end());
    out.rows.push_back(std::move(only_a));
  }
  out.a = std::move(a);
  out.b = std::move(b);
  return out;
}

std::vector<KernelDelta> ModeComparison::largest_wins(std::size_t count) const {
  return sorted_by_delta(rows, true, count);
}

std::vector<KernelDelta> ModeComparison::largest_losses(std::size_t count) const {
  return sorted_by_delta(rows, false, count);
}

}  // namespace fxscope::report
