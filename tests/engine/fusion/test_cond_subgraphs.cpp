// torch.cond: Inductor lowers each branch as a graph of its own (ir.Conditional,
// GraphLowering.make_subgraph), its kernels fused within it alone and written in a function of
// their own; the cond launches nothing. Its operands are realized by the cond, after the
// predicate's reduction inlined them.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("torch.cond's branches are planned as subgraphs of their own", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus/hand_cond_branch"))) {
    WARN("sample_graphs/corpus/hand_cond_branch is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_cond_branch"));
  REQUIRE(log);
  REQUIRE_FALSE(log->units().empty());
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(fused.size() == 1);
  const auto& f = fused.front();
  CHECK(f.ours.unknown_ops.empty());
  // The cond itself is no launch of the outer plan.
  for (const fusion::KernelGroup& g : f.ours.groups)
    CHECK_FALSE(test::node_names(f.post_grad, g).contains("cond"));
  REQUIRE(f.ours.subgraphs.size() == 2);
  REQUIRE(f.inductor.subgraphs.size() == 2);
  for (const fusion::SubgraphPlan& s : f.ours.subgraphs) {
    const graph::Graph* sub = f.post_grad.find_subgraph(s.name);
    REQUIRE(sub != nullptr);
    // A GEMM and its bias, activation and residual in one kernel.
    CHECK(s.plan.groups.size() == 2);
    // Before the layer norm reading the cond's result.
    CHECK(s.position < f.ours.groups.size());
    CHECK(test::node_names(f.post_grad, f.ours.groups[s.position]).contains("var_mean"));
  }
  // Inductor's branch kernels, read from the branches' functions, are formed exactly.
  std::size_t in_branches = 0;
  for (const fusion::KernelAgreement& k : f.agreement.kernels) {
    if (k.subgraph.empty()) continue;
    ++in_branches;
    CHECK(k.exact);
  }
  CHECK(in_branches == 2);
  // The branch kernels count as launches on both sides.
  CHECK(f.agreement.inductor_launches == 9);
  CHECK(f.agreement.our_launches == 9);
}

TEST_CASE("a split reduction's first pass shares no load with a pointwise kernel beside it",
          "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus/hand_cond_branch"))) {
    WARN("sample_graphs/corpus/hand_cond_branch is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_cond_branch"));
  REQUIRE(log);
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(fused.size() == 1);
  const auto& f = fused.front();
  // The predicate's mean over all 16,384 GELU values splits in two passes; the first loops over
  // (2 parts, 8,192 rows), the GELU the cond realizes over its own dims: no equal dep, so the
  // GELU is stored by a pointwise kernel of its own and the pass recomputes it from the GEMM.
  std::size_t storing_gelu = 0;
  for (const fusion::KernelGroup& g : f.ours.groups) {
    if (!test::node_names(f.post_grad, g).contains("mul_2")) continue;
    if (!test::holds_op(f.post_grad, g, "mean")) {
      ++storing_gelu;
      CHECK(g.nodes.size() == 6);
    }
  }
  CHECK(storing_gelu == 1);
  for (const fusion::KernelAgreement& k : f.agreement.kernels) CHECK(k.exact);
}
