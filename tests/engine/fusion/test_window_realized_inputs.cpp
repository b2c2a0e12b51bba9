// lowering.py lists the pooling ops and nearest upsampling in needs_realized_inputs, so a value
// with several users, one of them such a window, is stored when it is lowered (realize_hint):
// the window then gathers none of its origins. MaxViT's first block: a convolution's bias add read
// by a batch norm and an average pool; Inductor's pooling kernel holds the pool alone.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("pooling and nearest upsampling need realized inputs", "[fusion]") {
  CHECK(fusion::window_needs_realized_inputs("torch.ops.aten.avg_pool2d.default"));
  CHECK(fusion::window_needs_realized_inputs("torch.ops.aten.upsample_nearest2d.vec"));
  CHECK_FALSE(fusion::window_needs_realized_inputs("torch.ops.aten.add.Tensor"));
}

TEST_CASE("a reused value read by a pooling op is stored first (MaxViT)", "[fusion]") {
  const auto log = test::corpus_log("tv_maxvit_small");
  if (!log) return;
  int pools = 0;
  int alone = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& ours : f.ours.groups) {
        const bool pool = std::any_of(ours.nodes.begin(), ours.nodes.end(), [&](graph::NodeId id) {
          return ops::op_base_name(f.post_grad.node(id).target) == "avg_pool2d";
        });
        if (!pool) continue;
        ++pools;
        INFO(ours.name);
        alone += ours.nodes.size() == 1;
        CHECK(std::any_of(
            f.inductor.groups.begin(), f.inductor.groups.end(),
            [&](const fusion::KernelGroup& theirs) { return theirs.nodes == ours.nodes; }));
      }
    }
  }
  // The stem's pool reads the reused bias add; the later ones pool a residual sum they fuse.
  CHECK(pools == 4);
  CHECK(alone == 1);
}

// A pooling window loads its input at each of its positions, each a MemoryDep of its own, so two
// kernels computing the same window share that many loads (score_fusion_memory). DenseNet's
// transition pooling is computed by the next batch norm (inlined) and, stored into the first
// wide cat's slice, by a kernel whose copies into the other cats read it: the batch norm and the
// pooling, sharing four loads each, fuse before the copies join (which would take the kernel
// past are_long_distant_nodes for the batch norm), one kernel as in Inductor.
TEST_CASE("a window's loads weigh once per position in the shared bytes (DenseNet)", "[fusion]") {
  const auto log = test::corpus_log("tv_densenet121");
  if (!log) return;
  int kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (!g.name.starts_with(
                "triton_poi_fused__native_batch_norm_legit_no_training_avg_pool2d_cat_relu")) {
          continue;
        }
        bool copies = false;
        for (const graph::NodeId id : g.nodes) {
          copies = copies || f.post_grad.node(id).name == "cat_14" ||
                   f.post_grad.node(id).name == "cat_26" || f.post_grad.node(id).name == "cat_50";
        }
        if (!copies) continue;
        ++kernels;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(kernels == 3);
}
