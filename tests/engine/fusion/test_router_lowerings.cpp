// The lowerings a Mixture-of-Experts router meets (docs/fusion-rules.md): a short GPU sort is
// Inductor's ir.Sort, a Triton kernel that takes its consumers (the index_put scatter inverting
// the permutation, an int32 cast); a custom operator's implicit fallback requires its inputs'
// exact strides, so an input not in memory is a copy carrying the call's origins;
// _assert_scalar and empty launch nothing; an unrolled reduction loading more than 8 distinct
// addresses is stored (has_exceeded_max_reads).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

// Checks that every Inductor kernel holding OP has a group of the plan with exactly its nodes;
// returns how many there were.
int kernels_with_op_matched(const fusion::GraphFusion& f, std::string_view op) {
  int kernels = 0;
  for (const fusion::KernelGroup& theirs : f.inductor.groups) {
    if (!test::holds_op(f.post_grad, theirs, op)) continue;
    ++kernels;
    INFO(theirs.name);
    CHECK(test::formed_exactly(f.ours, theirs));
  }
  return kernels;
}

}  // namespace

TEST_CASE("Mixtral's router forms Inductor's sort, scatter and fallback-input kernels",
          "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hf_mixtral_bf16"));
  REQUIRE(log);
  int sorts = 0;
  int fallbacks = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      if (f.inductor.groups.empty()) continue;
      // Two routers: the sort kernel (values, int16 indices, the int32 cast for histc and the
      // index_put into the empty inverse permutation) and the two copies per expert layer.
      sorts += kernels_with_op_matched(f, "sort");
      fallbacks += kernels_with_op_matched(f, "grouped_mm_fallback");
      // No sort runs in the library, and no kernel launches for the empty buffer.
      for (const fusion::KernelGroup& g : f.ours.groups) {
        INFO(g.name);
        CHECK_FALSE(
            (g.kind == fusion::GroupKind::extern_kernel && test::holds_op(f.post_grad, g, "sort")));
      }
      CHECK(f.agreement.our_launches == f.agreement.inductor_launches);
      CHECK(f.agreement.exact_count() == f.agreement.kernels.size());
    }
  }
  CHECK(sorts >= 6);
  CHECK(fallbacks >= 4);
}

TEST_CASE("runtime asserts on unbacked sizes launch nothing", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_moe_sparse_unbacked_bf16"));
  REQUIRE(log);
  int asserts = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      if (f.inductor.groups.empty()) continue;
      for (const graph::Node& n : f.post_grad.nodes()) {
        asserts += ops::op_base_name(n.target) == "_assert_scalar" ? 1 : 0;
      }
      CHECK(f.agreement.our_launches == f.agreement.inductor_launches);
    }
  }
  CHECK(asserts == 8);
}
