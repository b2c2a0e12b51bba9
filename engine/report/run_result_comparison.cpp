#include "fxscope/report/run_result_comparison.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace fxscope::report {
namespace {

// Each kernel's time shared evenly by its nodes, as RunMode::time_per_node does.
std::unordered_map<std::string, double> per_node(const ModeSide& side) {
  std::unordered_map<std::string, double> out;
  for (const ModeSide::Kernel& k : side.kernels) {
    if (k.nodes.empty()) continue;
    const double share = k.us / static_cast<double>(k.nodes.size());
    for (const std::string& node : k.nodes) out[node] += share;
  }
  return out;
}

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
  ModeSide side{measured.mode, true, measured.total_us, measured.launches, {}};
  // The kernel's group (Inductor's name, extern_kernels.mm) rather than a library kernel's
  // mangled name: what the plan calls it, and readable.
  for (const RunKernel& k : measured.kernels) {
    side.kernels.push_back({k.group.empty() ? k.name : k.group, k.nodes, k.us});
  }
  return side;
}

ModeComparison compare_modes(ModeSide a, ModeSide b) {
  ModeComparison out;
  const auto a_nodes = per_node(a);
  std::unordered_set<std::string> b_nodes;
  for (const ModeSide::Kernel& k : b.kernels) {
    if (k.nodes.empty()) {
      out.b_unmatched_us += k.us;
      continue;
    }
    KernelDelta row{k.name, k.nodes, 0, k.us};
    for (const std::string& node : k.nodes) {
      // A node B runs in two kernels (recomputed) takes A's time once.
      if (!b_nodes.insert(node).second) continue;
      if (const auto it = a_nodes.find(node); it != a_nodes.end()) row.a_us += it->second;
    }
    out.rows.push_back(std::move(row));
  }
  KernelDelta only_a{"only in " + a.mode, {}, 0, 0};
  for (const ModeSide::Kernel& k : a.kernels) {
    if (k.nodes.empty()) out.a_unmatched_us += k.us;
  }
  for (const auto& [node, us] : a_nodes) {
    if (b_nodes.contains(node)) continue;
    only_a.nodes.push_back(node);
    only_a.a_us += us;
  }
  if (!only_a.nodes.empty()) {
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
