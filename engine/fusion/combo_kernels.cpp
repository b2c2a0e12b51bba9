// Combo kernels: foreach sub-kernels cut into launches by Inductor's argument limit.

#include "fxscope/fusion/combo_kernels.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <utility>

namespace fxscope::fusion {

std::size_t subkernel_args(const LoweredGraph& lowered, const std::vector<std::size_t>& members) {
  std::set<std::int64_t> writes;
  std::set<std::int64_t> reads;
  std::set<std::int64_t> mutated;
  for (const std::size_t m : members) {
    const SchedulerNode& s = lowered.nodes[m];
    writes.insert(s.buffer);
    reads.insert(s.reads.begin(), s.reads.end());
    if (s.mutates >= 0) mutated.insert(s.mutates);
  }
  // ReadWrites.merge_list: the loads of a buffer the sub-kernel stores are no reads of it.
  std::size_t loads = 0;
  for (const std::int64_t b : reads) loads += writes.count(b) == 0 ? 1U : 0U;
  return loads + writes.size() + mutated.size();
}

std::vector<Launch> form_launches(const LoweredGraph& lowered,
                                  const std::vector<std::vector<std::size_t>>& groups,
                                  const PlanOptions& options) {
  // Lists whose elements share a group were fused into one foreach node: union them.
  std::vector<std::size_t> family(lowered.foreach_list_sizes.size());
  std::iota(family.begin(), family.end(), std::size_t{0});
  const auto find = [&](std::size_t l) {
    while (family[l] != l) l = family[l] = family[family[l]];
    return l;
  };
  std::vector<std::optional<std::size_t>> list_of(groups.size());
  std::vector<std::size_t> position(groups.size(), 0);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const std::size_t m : groups[g]) {
      const SchedulerNode& s = lowered.nodes[m];
      if (s.foreach_list < 0) continue;
      const auto l = static_cast<std::size_t>(s.foreach_list);
      if (list_of[g]) {
        family[find(l)] = find(*list_of[g]);
      } else {
        list_of[g] = l;
        position[g] = s.foreach_index;
      }
    }
  }
  std::vector<Launch> launches;
  std::map<std::size_t, std::vector<std::size_t>> subkernels_of;  // family -> groups
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (list_of[g]) {
      subkernels_of[find(*list_of[g])].push_back(g);
    } else {
      launches.push_back({{groups[g]}, false, {}});
    }
  }
  for (auto& [f, subs] : subkernels_of) {
    // The foreach node's sub-kernels in list order (its snodes, zipped when lists fused).
    std::stable_sort(subs.begin(), subs.end(), [&](std::size_t x, std::size_t y) {
      return std::pair{position[x], groups[x].front()} < std::pair{position[y], groups[y].front()};
    });
    // set_kernel_post_grad_provenance_tracing(combo_kernel_node.snodes, ...) for each of its
    // kernels: the origins of every unfused sub-kernel of the node.
    std::set<graph::NodeId> named;
    for (const std::size_t g : subs) {
      if (groups[g].size() != 1) continue;
      const auto& origins = lowered.nodes[groups[g].front()].origins;
      named.insert(origins.begin(), origins.end());
    }
    const std::vector<graph::NodeId> names(named.begin(), named.end());
    std::size_t count = 0;
    Launch current{{}, true, names};
    for (const std::size_t g : subs) {
      const std::size_t args = subkernel_args(lowered, groups[g]);
      if (!current.subkernels.empty() && count + args > options.combo_kernel_max_num_args) {
        launches.push_back(std::move(current));
        current = Launch{{}, true, names};
        count = 0;
      }
      count += args;
      current.subkernels.push_back(groups[g]);
    }
    if (!current.subkernels.empty()) launches.push_back(std::move(current));
  }
  // In the order the groups came (the scheduler's launch order, every dependency kept), a combo
  // kernel where its first sub-kernel's group was.
  std::map<std::size_t, std::size_t> rank;  // a group's first node -> its place
  for (std::size_t g = 0; g < groups.size(); ++g) rank.emplace(groups[g].front(), g);
  const auto first = [&](const Launch& l) {
    std::size_t r = rank.at(l.subkernels.front().front());
    for (const auto& s : l.subkernels) r = std::min(r, rank.at(s.front()));
    return r;
  };
  std::stable_sort(launches.begin(), launches.end(),
                   [&](const Launch& a, const Launch& b) { return first(a) < first(b); });
  return launches;
}

}  // namespace fxscope::fusion
