// A view's loader calls its input's, so a value read through views inlines its input's whole
// inner function: the op count that decides whether a reused value is stored
// (StorageBox.should_realize_on_reuse, realize_opcount_threshold) counts through views. Swin-T's
// shifted-window attention mask is a chain of slice_scatter copies into zeros, read through
// views by several users: Inductor stores it in one kernel, and so must the plan.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a reused value counts its ops through views (Swin-T's shifted-window mask)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_swin_t");
  if (!log) return;
  int masks = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const bool scatters =
            std::any_of(theirs.nodes.begin(), theirs.nodes.end(), [&](graph::NodeId id) {
              return ops::op_base_name(f.post_grad.node(id).target) == "slice_scatter";
            });
        // The mask's own kernels; the softmax reading it carries a few of its nodes too.
        if (!scatters || theirs.kind != fusion::GroupKind::pointwise) continue;
        ++masks;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
    }
  }
  CHECK(masks >= 5);
}
