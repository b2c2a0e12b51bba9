#pragma once
// Test helper: a node of a parsed graph by name, failing the test when it is missing.

#include <catch2/catch.hpp>

#include <string_view>

#include "fxscope/graph/graph.h"

namespace fxscope::test {

inline const graph::Node& by_name(const graph::Graph& g, std::string_view name) {
  const auto id = g.find(name);
  INFO("node " << name);
  REQUIRE(id.has_value());
  return g.node(*id);
}

}  // namespace fxscope::test
