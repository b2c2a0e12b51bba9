// A graph output that views a value not in memory through a reshape that is neither a pure
// split nor a pure merge (ViT's packed q, k, v: 197 x 2 x 384 read as 197 x 12 x 64) is indexed
// through the flattened tensor (View.dynamic_reshape_indexer's fallback). GraphLowering.run_node
// stores the viewed value (result.realize()), then require_stride_order cannot reinterpret the
// view (convert_to_reinterpret_view) and copies it: a kernel per view, carrying its origins.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus_log.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a reshape neither splitting nor merging is indexed through the flat tensor",
          "[fusion]") {
  CHECK(fusion::reshape_needs_flat_index({197, 2, 384}, {197, 12, 64}));
  CHECK(fusion::reshape_needs_flat_index({6, 4}, {4, 6}));
  CHECK_FALSE(fusion::reshape_needs_flat_index({394, 1152}, {197, 2, 1152}));
  CHECK_FALSE(fusion::reshape_needs_flat_index({12, 197, 64}, {2, 6, 197, 64}));
  CHECK_FALSE(fusion::reshape_needs_flat_index({2, 197, 6, 64}, {394, 384}));
  CHECK_FALSE(fusion::reshape_needs_flat_index({1, 197, 1, 384}, {197, 384}));
}

TEST_CASE("graph outputs viewing q, k and v through a flat reshape are copied (ViT-S)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_vit_small_train_bf16");
  if (!log) return;
  int copies = 0;
  int kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& ours : f.ours.groups) {
        // The copy of one of q, k, v: a select of the packed projection among its origins.
        copies += std::any_of(ours.nodes.begin(), ours.nodes.end(), [&](graph::NodeId id) {
          const std::vector<graph::NodeId> in = f.post_grad.inputs(id);
          return ops::op_base_name(f.post_grad.node(id).target) == "select" && !in.empty() &&
                 ops::op_base_name(f.post_grad.node(in.front()).target) == "clone";
        });
      }
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.name.find("_add_clone_select_squeeze_") == std::string::npos) continue;
        ++kernels;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
      const double drift =
          static_cast<double>(f.ours.launches()) / static_cast<double>(f.inductor.launches()) - 1.0;
      CHECK(std::abs(drift) <= 0.05);
    }
  }
  // Three views (q, k, v) in each of the 4 blocks, as Inductor launches them.
  CHECK(copies == 12);
  CHECK(kernels == 12);
}
