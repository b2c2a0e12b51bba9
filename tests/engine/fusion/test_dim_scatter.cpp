// lowering.scatter / scatter_reduce_: a scatter with a float source is an ir.Scatter over its
// index's sizes, stored into a fill of its destination made while it is lowered: two kernels
// carrying the scatter's origins (those of its source's inlined producers included, gathered
// before an expand's mark_reuse stores them), not a library call.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("scatter is a Scatter into a fill of its own, both with its origins", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_moe_topk_train"));
  REQUIRE(log);
  int scatters = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const bool scatter =
            std::any_of(theirs.nodes.begin(), theirs.nodes.end(), [&](graph::NodeId id) {
              return ops::op_base_name(f.post_grad.node(id).target) == "scatter";
            });
        if (!scatter) continue;
        ++scatters;
        INFO(theirs.name);
        // Both the fill and the scatter hold these nodes: the plan needs two such groups.
        const auto same = std::count_if(
            f.ours.groups.begin(), f.ours.groups.end(),
            [&](const fusion::KernelGroup& ours) { return ours.nodes == theirs.nodes; });
        CHECK(same == 2);
      }
    }
  }
  CHECK(scatters >= 2);
}
