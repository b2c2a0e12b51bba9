// A max-pool lowered with its offsets (_low_memory_max_pool_with_offsets) is a tuple: run_node
// checks reuse and reads on the TensorBox the getitem takes out, while the getitem is lowered.
// With layout optimisation, a value it then stores is first required channels-last
// (maybe_apply_channels_last_stride_order), a copy made under the getitem's current_origins:
// the kernel holds the getitem. A value stored for a convolution among several readers
// (realize_hint) keeps the pool's own origins, as does every one without layout optimisation.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "graph_lookup.h"

using namespace fxscope;

namespace {

// Inductor's kernels holding a max-pool: how many, how many of those hold its getitem, and how
// many of those fxscope forms exactly.
struct PoolKernels {
  std::size_t total = 0;
  std::size_t with_getitem = 0;
  std::size_t exact = 0;
};

PoolKernels pool_kernels(const std::string& name) {
  PoolKernels out;
  test::for_each_inductor_kernel(
      name, fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        if (!test::holds_op(f.post_grad, theirs, "_low_memory_max_pool_with_offsets")) return;
        ++out.total;
        const auto names = test::node_names(f.post_grad, theirs);
        if (std::any_of(names.begin(), names.end(),
                        [](const std::string& n) { return n.starts_with("getitem"); })) {
          ++out.with_getitem;
        }
        INFO(theirs.name);
        const bool exact = test::formed_exactly(f.ours, theirs);
        CHECK(exact);
        out.exact += exact ? 1 : 0;
      });
  return out;
}

}  // namespace

TEST_CASE("a pooled value copied channels-last at its getitem carries the getitem (GoogLeNet)",
          "[fusion]") {
  if (!test::corpus_log("tv_googlenet_ro_bf16")) return;
  const PoolKernels k = pool_kernels("tv_googlenet_ro_bf16");
  // Thirteen max-pools: ten feed one convolution (the stem's first and each block's pool
  // branch), stored channels-last past the read threshold with the getitem; three feed the
  // four branches of the next block, stored for them as they are, without it.
  CHECK(k.total == 13);
  CHECK(k.with_getitem == 10);
  CHECK(k.exact == k.total);
}

TEST_CASE("a pooled value stored without layout optimisation keeps the pool's origins (AlexNet)",
          "[fusion]") {
  if (!test::corpus_log("tv_alexnet_dynamic")) return;
  const PoolKernels k = pool_kernels("tv_alexnet_dynamic");
  CHECK(k.total == 3);
  CHECK(k.with_getitem == 0);
  CHECK(k.exact == k.total);
}

TEST_CASE("a training max-pool feeding a constrained convolution stores its tuple once (FCN)",
          "[fusion]") {
  // FCN-ResNet50's bf16 channels-last training step: no layout optimisation, so the first
  // convolution after the stem's max-pool requires its input in the recorded stride order. The
  // values are the pool's Pointwise, stored in that order with the offsets the backward saves:
  // one kernel, both getitems among its origins, not a copy of the values beside the tuple.
  if (!test::corpus_log("tv_fcn_resnet50_train_bf16")) return;
  const PoolKernels k = pool_kernels("tv_fcn_resnet50_train_bf16");
  CHECK(k.total == 1);
  CHECK(k.with_getitem == 1);
  CHECK(k.exact == k.total);
}
