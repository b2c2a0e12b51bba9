// Exact node-set comparison of planned groups with Inductor's kernels.

#include "fxscope/fusion/agreement.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace fxscope::fusion {
namespace {

std::size_t shared_nodes(const std::vector<graph::NodeId>& a, const std::vector<graph::NodeId>& b) {
  std::vector<graph::NodeId> common;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
  return common.size();
}

// Adds a verdict for each of INDUCTOR's generated kernels against OURS, both over SUBGRAPH.
void compare_groups(const FusionPlan& ours, const FusionPlan& inductor, const std::string& subgraph,
                    AgreementReport& report);

}  // namespace

std::size_t AgreementReport::exact_count() const {
  return static_cast<std::size_t>(
      std::count_if(kernels.begin(), kernels.end(), [](const auto& k) { return k.exact; }));
}

double AgreementReport::exact_share() const {
  return kernels.empty() ? 1.0
                         : static_cast<double>(exact_count()) / static_cast<double>(kernels.size());
}

double AgreementReport::launch_ratio() const {
  return inductor_launches == 0
             ? 1.0
             : static_cast<double>(our_launches) / static_cast<double>(inductor_launches);
}

AgreementReport compare_plans(const FusionPlan& ours, const FusionPlan& inductor) {
  AgreementReport report;
  report.our_launches = ours.launches();
  report.inductor_launches = inductor.launches();
  compare_groups(ours, inductor, "", report);
  // A subgraph's kernels against the plan of the same subgraph, node ids being its own.
  static const FusionPlan kNone;
  for (const SubgraphPlan& theirs : inductor.subgraphs) {
    const FusionPlan* mine = subgraph_plan(ours, theirs.name);
    compare_groups(mine ? *mine : kNone, theirs.plan, theirs.name, report);
  }
  return report;
}

namespace {

void compare_groups(const FusionPlan& ours, const FusionPlan& inductor, const std::string& subgraph,
                    AgreementReport& report) {
  std::set<std::vector<graph::NodeId>> our_sets;
  std::set<std::vector<graph::NodeId>> our_inputs;
  for (const KernelGroup& g : ours.groups) {
    our_sets.insert(g.named_nodes.value_or(g.nodes));
    if (!g.input_key().empty()) our_inputs.insert(g.input_key());
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < inductor.groups.size(); ++i) {
    const KernelGroup& theirs = inductor.groups[i];
    if (theirs.kind == GroupKind::extern_kernel) continue;
    const bool per_launch = theirs.note == "members from provenance";
    if (!per_launch && !seen.insert(theirs.name).second) continue;
    KernelAgreement verdict;
    verdict.subgraph = subgraph;
    verdict.inductor_group = i;
    // A kernel naming no nodes is compared by the graph inputs it stores into, or else reads,
    // where its launch says; with neither, it matches nothing.
    const bool by_inputs = theirs.nodes.empty();
    const std::vector<graph::NodeId>& wanted = by_inputs ? theirs.input_key() : theirs.nodes;
    verdict.exact =
        !wanted.empty() && (by_inputs ? our_inputs.count(wanted) > 0 : our_sets.count(wanted) > 0);
    std::size_t best = 0;
    for (std::size_t j = 0; j < ours.groups.size(); ++j) {
      const KernelGroup& g = ours.groups[j];
      const std::vector<graph::NodeId>& nodes = by_inputs       ? g.input_key()
                                                : g.named_nodes ? *g.named_nodes
                                                                : g.nodes;
      // An exact match outranks any partial one.
      const std::size_t score = nodes == wanted ? wanted.size() + 1 : shared_nodes(nodes, wanted);
      if (score > best) {
        best = score;
        verdict.closest_group = j;
      }
    }
    report.kernels.push_back(verdict);
  }
}

}  // namespace

}  // namespace fxscope::fusion
