#include "fxscope/report/run_attribution.h"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace fxscope::report {
namespace {

std::vector<std::string> sorted_node_set(std::vector<std::string> nodes) {
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

bool names_contain(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The groups by the names they stand for (a name two groups give places nothing), by exact node
// set, and by node.
struct GroupIndex {
  std::unordered_map<std::string, std::size_t> by_name;
  std::map<std::vector<std::string>, std::vector<std::size_t>> by_node_set;
  std::unordered_map<std::string, std::vector<std::size_t>> by_node;

  explicit GroupIndex(const std::vector<AttributionGroup>& groups) {
    std::unordered_set<std::string> shared;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (const std::string& name : groups[g].names) {
        const auto [it, fresh] = by_name.emplace(name, g);
        if (!fresh && it->second != g) shared.insert(name);
      }
      if (!groups[g].nodes.empty()) by_node_set[sorted_node_set(groups[g].nodes)].push_back(g);
      for (const std::string& node : groups[g].nodes) {
        auto& holders = by_node[node];
        if (holders.empty() || holders.back() != g) holders.push_back(g);
      }
    }
    for (const std::string& name : shared) by_name.erase(name);
  }
};

// The group KERNEL was run for, where its name and nodes say so. Split by nodes, a kernel's time
// would also land on every group recomputing its nodes: pointwise_chain's normalisation kernel
// recomputes the chain its var_mean kernel reduces, and took 4.5 of that kernel's 21 us. A layout
// copy's nodes are only the origins it is named after: its name alone places it.
std::optional<std::size_t> own_group(const RunKernel& kernel,
                                     const std::vector<AttributionGroup>& groups,
                                     const GroupIndex& index) {
  const auto it = index.by_name.find(kernel.group);
  if (kernel.group.empty() || it == index.by_name.end()) return std::nullopt;
  const AttributionGroup& host = groups[it->second];
  if (names_contain(host.layout_copies, kernel.group)) return it->second;
  if (kernel.nodes.empty()) return std::nullopt;
  for (const std::string& node : kernel.nodes) {
    if (!names_contain(host.nodes, node)) return std::nullopt;
  }
  return it->second;
}

}  // namespace

std::vector<AttributionGroup> plan_attribution_groups(const fusion::FusionPlan& plan,
                                                      const graph::Graph& post_grad) {
  std::vector<AttributionGroup> out;
  out.reserve(plan.groups.size());
  for (const fusion::KernelGroup& group : plan.groups) {
    AttributionGroup& a = out.emplace_back();
    a.names.push_back(group.name);
    for (const graph::NodeId id : group.nodes) {
      if (id < post_grad.size()) a.nodes.push_back(post_grad.node(id).name);
    }
    if (fusion::is_layout_copy(group)) a.layout_copies.push_back(group.name);
  }
  return out;
}

RunAttribution attribute_run(const RunMode& mode, const std::vector<AttributionGroup>& groups) {
  RunAttribution out;
  out.groups.resize(groups.size());
  const GroupIndex index(groups);
  std::map<std::vector<std::string>, std::size_t> taken;  // kernels placed per node set
  double attributed = 0;
  for (std::size_t k = 0; k < mode.kernels.size(); ++k) {
    const RunKernel& kernel = mode.kernels[k];
    if (!kernel.nodes.empty()) {
      attributed += kernel.us;
      const double share = kernel.us / static_cast<double>(kernel.nodes.size());
      for (const std::string& node : kernel.nodes) out.per_node[node] += share;
    }
    std::map<std::size_t, double> landed;  // group -> us, in group order
    if (const auto own = own_group(kernel, groups, index)) {
      landed[*own] = kernel.us;
    } else if (!kernel.nodes.empty()) {
      const auto key = sorted_node_set(kernel.nodes);
      if (const auto it = index.by_node_set.find(key); it != index.by_node_set.end()) {
        landed[it->second[taken[key]++ % it->second.size()]] = kernel.us;
      } else {
        const double share = kernel.us / static_cast<double>(kernel.nodes.size());
        for (const std::string& node : kernel.nodes) {
          const auto holders = index.by_node.find(node);
          if (holders == index.by_node.end()) {
            out.outside_us += share;
            if (!names_contain(out.outside_nodes, node)) out.outside_nodes.push_back(node);
            continue;
          }
          for (const std::size_t g : holders->second) {
            landed[g] += share / static_cast<double>(holders->second.size());
          }
        }
      }
    }
    if (landed.empty()) out.stray_kernels.push_back(k);
    for (const auto& [g, us] : landed) {
      GroupTime& time = out.groups[g];
      time.us += us;
      time.measured = true;
      time.kernels.push_back(k);
      if (!groups[g].names.empty() && kernel.group == groups[g].names.front()) time.own = k;
    }
  }
  out.unattributed_us = std::max(0.0, mode.kernel_us - attributed);
  return out;
}

}  // namespace fxscope::report
