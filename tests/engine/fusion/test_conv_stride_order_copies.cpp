// kernel.conv.convolution without layout optimisation: once its inputs are in memory, the
// convolution requires its input and weight in the stride order of its own output
// (require_stride_order with conv_layout's strides, channels-last where the weight is). A
// channels-last UNet turns layout_opt off (decide_layout_opt), yet its weights are channels-last:
// each group norm + SiLU, saved for the backward in its recorded (contiguous) order as a graph
// output, is copied to channels-last for the next convolution, the copy carrying the
// convolution's origins (and its bias cast, which it gathered), and fusing into the kernel that
// stores the SiLU: Inductor's kernel stores the value twice.

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

TEST_CASE("a group norm + SiLU stores its output and a channels-last copy for the convolution",
          "[fusion]") {
  const auto log = test::corpus_log("hand_unet_train_cl_bf16");
  if (!log) return;
  int kernels = 0;
  int formed = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const auto holds = [&](std::string_view op) {
          return test::holds_op(f.post_grad, theirs, op);
        };
        // The forward's normalisation kernels that also name the convolution they feed.
        if (theirs.kind != fusion::GroupKind::pointwise || !holds("convolution") || !holds("neg") ||
            !holds("exp")) {
          continue;
        }
        ++kernels;
        INFO(theirs.name);
        const bool found = test::formed_exactly(f.ours, theirs);
        formed += found ? 1 : 0;
      }
    }
  }
  // Six launches of five kernels (the last block's launches the second's kernel again), each a
  // kernel of its own: the copy to channels-last tiles it in 2-D, which keeps it out of its
  // group norm's reduction (tiling_prevents_reduction_fusion).
  CHECK(kernels == 6);
  CHECK(formed == 6);
}
