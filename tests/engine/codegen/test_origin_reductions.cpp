// A group's nodes are Inductor's origins of its kernel, and a convolution's bias epilogue carries
// everything the convolution gathered: an SE block's mean (rows of channels over the positions)
// among them. Fused into a layer norm over other rows, the group holds two reductions; the mean's
// own kernel stores it and no store of this one needs it, so the kernel computes only the layer
// norm's rows.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/ops/op_registry.h"

using namespace fxscope;

TEST_CASE("a reduction no store of its group needs is computed elsewhere", "[codegen]") {
  int checked = 0;
  for (const auto& planned :
       test::planned_graphs("corpus/tv_maxvit_small", fusion::Mode::default_mode)) {
    const graph::Graph& g = planned.fusion.post_grad;
    for (const auto& group : planned.fusion.ours.groups) {
      const auto named = [&](std::string_view base) {
        return std::find_if(group.nodes.begin(), group.nodes.end(), [&](graph::NodeId n) {
          return g.node(n).is_op() && ops::op_base_name(g.node(n).target) == base;
        });
      };
      const auto mean = named("mean");
      if (mean == group.nodes.end() || named("var_mean") == group.nodes.end()) continue;
      // The mean among the origins: read by a convolution, not by anything of the group's.
      if (named("sigmoid") == group.nodes.end()) continue;
      codegen::CodegenOptions options;
      options.hints = planned.hints;
      const auto kernel = codegen::generate(g, group, options);
      INFO(planned.where << " " << group.name);
      REQUIRE(kernel);
      // Rows of the layer norm (the group's numel), none of the mean's.
      CHECK(kernel->source.find("reduction " + std::to_string(group.numel) + " rows x " +
                                std::to_string(group.rnumel)) != std::string::npos);
      CHECK(std::none_of(kernel->params.begin(), kernel->params.end(),
                         [&](const codegen::KernelParam& p) { return p.node == *mean; }));
      ++checked;
    }
  }
  // The MBConv blocks' SE means before each block's attention layer norm; the third stage's
  // residual sum, stored channels-last for its reuse, is its own kernel (the mean among its
  // origins) and its layer norm splits, as Inductor's.
  CHECK(checked >= 7);
}
