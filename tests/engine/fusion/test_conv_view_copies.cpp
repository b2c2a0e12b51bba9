// kernel.conv.convolution under layout optimisation: x.realize(), then require_channels_last(x).
// ShuffleNet's branches convolve one half of a channel shuffle (a split of a reshaped clone):
// realizing that view stores the clone with its own origins, and the half, a view of a buffer
// laid out contiguous, is copied to channels-last with the convolution's origins. Without the
// rule no copy is made and the shuffle's clone is inlined into the next cat.

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

TEST_CASE("a convolution copies a view of a contiguous buffer to channels-last (ShuffleNet)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_shufflenet_v2_fp16");
  if (!log) return;
  int copies = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const auto holds = [&](std::string_view op) {
          return test::holds_op(f.post_grad, theirs, op);
        };
        if (!holds("split") || !holds("convolution") || holds("cat")) continue;
        ++copies;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
    }
  }
  CHECK(copies >= 3);
}
