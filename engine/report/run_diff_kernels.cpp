// Kernel launches of one unit in two logs: which the other side lacks, and which of those were
// fused differently (they compute the same source nodes in other kernels).
#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "run_diff_facts.h"

namespace fxscope::report {
namespace {

// The launches of FROM beyond the count of their key in OTHER: the first ones are taken as the
// matched ones, since Inductor numbers kernels in the order it generates them.
std::vector<const LaunchFacts*> surplus(const std::vector<LaunchFacts>& from,
                                        const std::vector<LaunchFacts>& other) {
  std::map<std::string, int> left;
  for (const auto& l : other) ++left[l.key];
  std::vector<const LaunchFacts*> out;
  for (const auto& l : from) {
    int& n = left[l.key];
    if (n > 0) {
      --n;
    } else {
      out.push_back(&l);
    }
  }
  return out;
}

struct DisjointSets {
  std::vector<std::size_t> parent;
  explicit DisjointSets(std::size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), std::size_t{0});
  }
  std::size_t find(std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(std::size_t i, std::size_t j) { parent[find(i)] = find(j); }
};

}  // namespace

std::string_view to_string(KernelChangeKind kind) {
  switch (kind) {
    case KernelChangeKind::added:
      return "added";
    case KernelChangeKind::removed:
      return "removed";
    case KernelChangeKind::refused:
      return "fused differently";
  }
  return "?";
}

std::vector<KernelChange> kernel_changes(const std::vector<LaunchFacts>& a,
                                         const std::vector<LaunchFacts>& b) {
  const auto removed = surplus(a, b);
  const auto added = surplus(b, a);
  // One list, A's first: index i < removed.size() is A's.
  std::vector<const LaunchFacts*> all(removed);
  all.insert(all.end(), added.begin(), added.end());
  DisjointSets sets(all.size());
  std::map<std::string, std::size_t> owner;  // source node -> first launch computing it
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (const auto& node : all[i]->nodes) {
      const auto [it, fresh] = owner.emplace(node, i);
      if (!fresh) sets.join(i, it->second);
    }
  }
  std::map<std::size_t, KernelChange> groups;  // by root; first members keep A's order
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::size_t root = sets.find(i);
    auto [it, fresh] = groups.try_emplace(root);
    if (fresh) order.push_back(root);
    auto& change = it->second;
    (i < removed.size() ? change.a : change.b).push_back(all[i]->name);
    change.ops.insert(change.ops.end(), all[i]->ops.begin(), all[i]->ops.end());
  }
  std::vector<KernelChange> out;
  for (const std::size_t root : order) {
    auto& change = groups[root];
    std::sort(change.ops.begin(), change.ops.end());
    change.ops.erase(std::unique(change.ops.begin(), change.ops.end()), change.ops.end());
    change.kind = change.a.empty()   ? KernelChangeKind::added
                  : change.b.empty() ? KernelChangeKind::removed
                                     : KernelChangeKind::refused;
    out.push_back(std::move(change));
  }
  return out;
}

}  // namespace fxscope::report
