#include "fxscope/export/cluster_closure.h"

#include <algorithm>
#include <iterator>

namespace fxscope::exporting {
namespace {

// A node's clusters reached through nodes outside every cluster are few (a getitem between two
// kernels reaches two); a chain of unclustered nodes joining many kernels (a shape computation
// read everywhere) is no cluster's interior, and its sets stop growing here.
constexpr std::size_t kMostClusters = 16;

void add(std::vector<int>& set, int cluster) {
  const auto at = std::lower_bound(set.begin(), set.end(), cluster);
  if (at != set.end() && *at == cluster) return;
  if (set.size() < kMostClusters) set.insert(at, cluster);
}

// The nodes outside every cluster between two members of one cluster, each put in it.
void close_over_between(const graph::Graph& graph,
                        const std::vector<std::vector<graph::NodeId>>& users,
                        std::vector<int>& cluster_of) {
  const auto n = static_cast<graph::NodeId>(graph.size());
  const auto cluster = [&](graph::NodeId id) { return cluster_of[id]; };
  // FX lists a node after its inputs: one pass forward gathers the clusters each unclustered node
  // is reached from, one pass backward those it reaches.
  std::vector<std::vector<int>> from(n);
  std::vector<std::vector<int>> to(n);
  for (graph::NodeId id = 0; id < n; ++id) {
    if (cluster(id) >= 0) continue;
    for (const graph::NodeId in : graph.inputs(id)) {
      if (in >= id) continue;
      if (cluster(in) >= 0) {
        add(from[id], cluster(in));
      } else {
        for (const int k : from[in]) add(from[id], k);
      }
    }
  }
  for (graph::NodeId id = n; id-- > 0;) {
    if (cluster(id) >= 0) continue;
    for (const graph::NodeId user : users[id]) {
      if (user <= id) continue;
      if (cluster(user) >= 0) {
        add(to[id], cluster(user));
      } else {
        for (const int k : to[user]) add(to[id], k);
      }
    }
  }
  for (graph::NodeId id = 0; id < n; ++id) {
    std::vector<int> both;
    std::set_intersection(from[id].begin(), from[id].end(), to[id].begin(), to[id].end(),
                          std::back_inserter(both));
    if (!both.empty()) cluster_of[id] = both.front();
  }
}

// The block each node is drawn in: its cluster, or itself (after every cluster) outside them.
std::size_t block_of(const std::vector<int>& cluster_of, std::size_t clusters, graph::NodeId id) {
  return cluster_of[id] >= 0 ? std::size_t(cluster_of[id]) : clusters + id;
}

// Per block, the strongly connected set it is in (Tarjan's, without recursion: a chain of
// thousands of nodes would overflow the stack), and the size of each set.
struct Components {
  std::vector<std::size_t> of;
  std::vector<std::size_t> size;
};

Components components(const std::vector<std::vector<std::size_t>>& next) {
  const std::size_t n = next.size();
  constexpr std::size_t kUnseen = static_cast<std::size_t>(-1);
  std::vector<std::size_t> index(n, kUnseen), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<std::size_t> stack;
  Components out;
  out.of.assign(n, 0);
  std::size_t counter = 0;
  std::vector<std::pair<std::size_t, std::size_t>> walk;  // block, next successor to visit
  for (std::size_t root = 0; root < n; ++root) {
    if (index[root] != kUnseen) continue;
    walk.emplace_back(root, 0);
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!walk.empty()) {
      auto& [v, i] = walk.back();
      if (i < next[v].size()) {
        const std::size_t w = next[v][i++];
        if (index[w] == kUnseen) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          walk.emplace_back(w, 0);
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::size_t done = v;
      walk.pop_back();
      if (!walk.empty()) low[walk.back().first] = std::min(low[walk.back().first], low[done]);
      if (low[done] != index[done]) continue;
      const std::size_t component = out.size.size();
      out.size.push_back(0);
      std::size_t w = 0;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack[w] = false;
        out.of[w] = component;
        ++out.size[component];
      } while (w != done);
    }
  }
  return out;
}

// The blocks' components under CLUSTER_OF, with the number of clusters.
Components block_components(const graph::Graph& graph, const std::vector<int>& cluster_of,
                            std::size_t clusters) {
  std::vector<std::vector<std::size_t>> next(clusters + graph.size());
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    const std::size_t to = block_of(cluster_of, clusters, id);
    for (const graph::NodeId in : graph.inputs(id)) {
      if (in >= graph.size()) continue;
      const std::size_t from = block_of(cluster_of, clusters, in);
      if (from != to) next[from].push_back(to);
    }
  }
  for (auto& n : next) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
  return components(next);
}

std::size_t cluster_count(const std::vector<int>& cluster_of) {
  int most = -1;
  for (const int k : cluster_of) most = std::max(most, k);
  return std::size_t(most + 1);
}

// Makes each cluster of a cycle convex: the members a path leaving the cluster comes back to,
// and what they feed within it, form its late part; whichever part is smaller (the late one
// where even) is drawn outside the cluster. A convolution's bias cast, which Inductor adds after
// the convolution, is the early part of the bias add's kernel. False where no cluster changed,
// which is where none is on a cycle.
bool break_cycles(const graph::Graph& graph, const std::vector<std::vector<graph::NodeId>>& users,
                  std::vector<int>& cluster_of) {
  const std::size_t clusters = cluster_count(cluster_of);
  const Components c = block_components(graph, cluster_of, clusters);
  std::vector<std::vector<graph::NodeId>> members(clusters);
  for (graph::NodeId id = 0; id < graph.size(); ++id) {
    if (cluster_of[id] >= 0) members[std::size_t(cluster_of[id])].push_back(id);
  }
  bool changed = false;
  std::vector<char> seen(graph.size(), 0);
  std::vector<char> late(graph.size(), 0);
  for (std::size_t k = 0; k < clusters; ++k) {
    if (members[k].size() < 2 || c.size[c.of[k]] < 2) continue;
    const int own = int(k);
    // Forward from every edge that leaves the cluster; a member reached is late, and so is every
    // member it feeds.
    std::vector<graph::NodeId> todo;
    std::fill(seen.begin(), seen.end(), 0);
    for (const graph::NodeId m : members[k]) {
      for (const graph::NodeId u : users[m]) {
        if (cluster_of[u] != own && !seen[u]) {
          seen[u] = 1;
          todo.push_back(u);
        }
      }
    }
    std::size_t late_count = 0;
    while (!todo.empty()) {
      const graph::NodeId v = todo.back();
      todo.pop_back();
      if (cluster_of[v] == own && !late[v]) {
        late[v] = 1;
        ++late_count;
      }
      for (const graph::NodeId u : users[v]) {
        if (!seen[u]) {
          seen[u] = 1;
          todo.push_back(u);
        }
      }
    }
    if (late_count > 0 && late_count < members[k].size()) {
      const bool drop_late = 2 * late_count <= members[k].size();
      for (const graph::NodeId m : members[k]) {
        if (bool(late[m]) == drop_late) cluster_of[m] = -1;
      }
      changed = true;
    }
    for (const graph::NodeId m : members[k]) late[m] = 0;
  }
  return changed;
}

}  // namespace

std::vector<int> drawn_owners(const fusion::FusionPlan& plan, std::size_t size) {
  std::vector<int> owner(size, -1);
  const auto claim = [&](auto&& takes) {
    for (std::size_t k = 0; k < plan.groups.size(); ++k) {
      if (!takes(plan.groups[k])) continue;
      for (const graph::NodeId id : plan.groups[k].drawn_nodes()) {
        if (id < size && owner[id] < 0) owner[id] = int(k);
      }
    }
  };
  claim([](const fusion::KernelGroup& g) { return g.kind == fusion::GroupKind::extern_kernel; });
  claim([](const fusion::KernelGroup& g) {
    return g.kind != fusion::GroupKind::extern_kernel && !fusion::is_layout_copy(g);
  });
  claim([](const fusion::KernelGroup& g) { return fusion::is_layout_copy(g); });
  return owner;
}

std::vector<int> drawn_clusters(const graph::Graph& graph, std::vector<int> cluster_of) {
  cluster_of.resize(graph.size(), -1);
  const auto users = graph.users();
  close_over_between(graph, users, cluster_of);
  // Each round splits every cluster on a cycle; a handful of rounds clears every corpus graph.
  for (int round = 0; round < 8; ++round) {
    if (!break_cycles(graph, users, cluster_of)) break;
  }
  return cluster_of;
}

std::size_t cluster_cycles(const graph::Graph& graph, const std::vector<int>& cluster_of) {
  std::vector<int> sized = cluster_of;
  sized.resize(graph.size(), -1);
  const Components c = block_components(graph, sized, cluster_count(sized));
  return std::size_t(
      std::count_if(c.size.begin(), c.size.end(), [](std::size_t s) { return s > 1; }));
}

}  // namespace fxscope::exporting
