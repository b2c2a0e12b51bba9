// With channels-last layout optimisation, GraphLowering.run_node stores a value that prefers
// channels-last (find_nodes_prefer_channels_last: it feeds a convolution, or a convolution feeds
// it before the last one) in channels-last stride order when it realizes it for its reuse
// (maybe_apply_channels_last_stride_order), whatever its four dims mean. MaxViT's residual sums
// over window-partitioned values (batch, windows, positions, channels) are so stored with the
// windows innermost: the layer norm reading one reduces a dim of stride 4, an outer reduction,
// and splits into two kernels as Inductor's do.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/layout_opt.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("nodes prefer channels-last around convolutions, not past a bmm or the last one",
          "[fusion]") {
  const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, arg0_1: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0", arg1_1: "f32[4, 4, 1, 1][4, 1, 1, 1]cuda:0", arg2_1: "f32[8, 8, 8][64, 8, 1]cuda:0", arg3_1: "f32[4, 4, 1, 1][4, 1, 1, 1]cuda:0"):
        convolution: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.convolution.default(arg0_1, arg1_1, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
        relu: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.relu.default(convolution)
        view: "f32[8, 8, 8][64, 8, 1]cuda:0" = torch.ops.aten.reshape.default(relu, [8, 8, 8])
        bmm: "f32[8, 8, 8][64, 8, 1]cuda:0" = torch.ops.aten.bmm.default(view, arg2_1)
        view_1: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.reshape.default(bmm, [2, 4, 8, 8])
        convolution_1: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.convolution.default(view_1, arg3_1, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
        relu_1: "f32[2, 4, 8, 8][256, 64, 8, 1]cuda:0" = torch.ops.aten.relu.default(convolution_1)
        return (relu_1,)
)";
  const graph::ParsedGraph parsed = graph::parse_fx_readable(text, "test");
  const graph::Graph& g = parsed.graph;
  const std::vector<bool> prefer = fusion::nodes_prefer_channels_last(g);
  REQUIRE(prefer.size() == g.size());
  const auto flagged = [&](const char* name) {
    const std::optional<graph::NodeId> id = g.find(name);
    REQUIRE(id);
    return prefer[*id];
  };
  CHECK(flagged("convolution"));
  CHECK(flagged("convolution_1"));
  CHECK(flagged("arg0_1"));  // feeds a convolution
  CHECK(flagged("relu"));    // fed by one, before the last
  CHECK(flagged("view"));
  CHECK(flagged("view_1"));     // feeds the last convolution
  CHECK_FALSE(flagged("bmm"));  // a bmm neither takes nor passes the flag
  CHECK_FALSE(flagged("arg2_1"));
  CHECK_FALSE(flagged("relu_1"));  // past the last convolution
}

TEST_CASE("a reused window-partitioned residual sum is stored channels-last (MaxViT)", "[fusion]") {
  const auto log = test::corpus_log("tv_maxvit_small");
  if (!log) return;
  std::size_t split_passes = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      // The passes of a split layer norm: Inductor's kernels holding its var_mean and what it
      // reads, without the normalisation (the third stage's grid-attention layer norm reads the
      // residual sum through a window partition undone and a grid partition made: its loads
      // vote by their steps along the channels, stride 4 and 1, a tie that splits it).
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const auto holds = [&](std::string_view op) {
          return test::holds_op(f.post_grad, theirs, op);
        };
        const bool split_pass = holds("var_mean") && !holds("rsqrt");
        if (!split_pass) continue;
        ++split_passes;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
      // Each such layer norm is three launches in Inductor where an unsplit one is one.
      const auto ours = static_cast<double>(f.ours.launches());
      const auto inductor = static_cast<double>(f.inductor.launches());
      CHECK(std::abs(ours - inductor) <= 0.05 * inductor);
    }
  }
  CHECK(split_passes >= 6);
}

TEST_CASE("a reused view preferring channels-last is copied, its storage inlined (ConvNeXt)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_convnext_tiny_cl_fp16");
  if (!log) return;
  std::size_t kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      // The stem's layer norm, permuted back to N, C, H, W and read by the residual add and the
      // next block: the view is stored, and each reader computes the layer norm again.
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (!theirs.name.starts_with("triton_")) continue;  // library calls are not compared
        ++kernels;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
    }
  }
  CHECK(kernels > 100);
}
