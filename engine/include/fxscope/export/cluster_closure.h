#pragma once
// The clusters a drawing of a graph puts its kernel groups in, made so that dot can keep the
// graph's order. dot ranks a cluster as one block: where blocks form a cycle it turns edges
// upwards to break it, which lays a training step's 200-node chain out as one wide row. A cycle
// comes from a node outside every cluster that a member feeds and that feeds a member back (the
// getitem of a var_mean whose kernel also reads the mean), or from a member that the FX graph
// feeds to an earlier kernel although this kernel computes it (a convolution's bias cast, which
// Inductor adds after the convolution). The first is drawn in the cluster it lies within; the
// second outside its cluster.

#include <vector>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::exporting {

// Per node of a graph of SIZE nodes, the group of PLAN a drawing puts it in (-1: none). A node
// several groups list is drawn in the library kernel that runs it: Inductor names a pointwise
// kernel after the convolution_backward whose input it computes, and lists it among the kernel's
// nodes. Else in the first group that lists it, where it is first computed (Inductor recomputes
// a cheap pointwise op in each kernel that reads it, and the later kernel reads what the earlier
// computed). A layout copy computes none of the nodes it is named after (a convolution's or
// attention call's origins): it takes only what no other group lists; one of a graph input, which
// names no node, takes the input it copies.
std::vector<int> drawn_owners(const fusion::FusionPlan& plan, std::size_t size);

// CLUSTER_OF (per node of GRAPH: its cluster or -1; may be shorter than the graph), sized to the
// graph, with every node outside every cluster that lies on a path from a member of a cluster to
// a member of the same one through no other cluster put in it (the lowest, where several), and
// then, while clusters still form a cycle, each cluster on one split where a path leaving it
// comes back: the members that path reaches, and what they feed within it, are its late part,
// and the smaller part (the late one where even) is drawn outside the cluster.
std::vector<int> drawn_clusters(const graph::Graph& graph, std::vector<int> cluster_of);

// How many cycles (strongly connected sets of two or more) the clusters of CLUSTER_OF form, each
// cluster and each node outside every cluster taken as one block: 0 for a drawing dot can rank
// in the graph's order.
std::size_t cluster_cycles(const graph::Graph& graph, const std::vector<int>& cluster_of);

}  // namespace fxscope::exporting
