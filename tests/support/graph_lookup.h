#pragma once
// Test helpers: a node of a parsed graph (or its id) by name, failing the test when it is missing;
// the names of a kernel group's nodes; whether a group holds an op; whether a plan formed a kernel.

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_registry.h"

namespace fxscope::test {

// The id of the node of G named NAME, failing the test when it is missing.
inline graph::NodeId id_of(const graph::Graph& g, std::string_view name) {
  const auto id = g.find(name);
  INFO("node " << name);
  REQUIRE(id.has_value());
  return *id;
}

inline const graph::Node& by_name(const graph::Graph& g, std::string_view name) {
  return g.node(id_of(g, name));
}

inline std::set<std::string> node_names(const graph::Graph& g, const fusion::KernelGroup& k) {
  std::set<std::string> out;
  for (const graph::NodeId id : k.nodes) out.insert(g.node(id).name);
  return out;
}

// Whether PLAN has a group of exactly the nodes of THEIRS (one of Inductor's kernels formed).
inline bool formed_exactly(const fusion::FusionPlan& plan, const fusion::KernelGroup& theirs) {
  return std::any_of(plan.groups.begin(), plan.groups.end(),
                     [&](const fusion::KernelGroup& ours) { return ours.nodes == theirs.nodes; });
}

// Whether group K holds a node of G whose op is OP ("convolution", "var_mean").
inline bool holds_op(const graph::Graph& g, const fusion::KernelGroup& k, std::string_view op) {
  return std::any_of(k.nodes.begin(), k.nodes.end(),
                     [&](graph::NodeId id) { return ops::op_base_name(g.node(id).target) == op; });
}

}  // namespace fxscope::test
