// Inductor reorders a node's loops to share data with another only in one last fusion round,
// after the others fuse nothing more (Scheduler.fuse_nodes, is_reorder_round). A transformer's
// layer norm backward over a transposed gradient (nn.MultiheadAttention's batch-first
// transpose) stores its input gradient in the gradient's row order; the next block reads it
// transposed. Reordered in every round, that pointwise node first fused with the bf16 cast the
// next GEMM reads and was lost to its own reduction; in the last round only, the reduction
// takes it as its epilogue first, as Inductor's kernels have it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "graph_lookup.h"

using namespace fxscope;

namespace {

struct LayerNormBackwards {
  int kernels = 0;
  int exact = 0;
};

// Inductor's layer norm backward kernels of LOG that recompute no forward statistics.
LayerNormBackwards layer_norm_backwards(const std::string& log_name) {
  LayerNormBackwards out;
  test::for_each_inductor_kernel(
      log_name, fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        if (theirs.name.find("native_layer_norm_backward") == std::string::npos) return;
        const bool recomputes =
            std::any_of(theirs.nodes.begin(), theirs.nodes.end(), [&](graph::NodeId id) {
              return ops::op_base_name(f.post_grad.node(id).target).starts_with("var_mean");
            });
        if (recomputes) return;
        ++out.kernels;
        const bool exact = test::formed_exactly(f.ours, theirs);
        INFO(log_name << ": " << theirs.name);
        CHECK(exact);
        out.exact += exact ? 1 : 0;
      });
  return out;
}

}  // namespace

TEST_CASE("a layer norm backward takes its input gradient as its epilogue (ViT training)",
          "[fusion]") {
  const LayerNormBackwards base = layer_norm_backwards("tv_vit_b_16_train_bf16");
  const LayerNormBackwards small = layer_norm_backwards("tv_vit_small_train_bf16");
  if (base.kernels == 0) return;  // corpus absent: warned
  CHECK(base.kernels == 126);
  CHECK(small.kernels == 46);
}
