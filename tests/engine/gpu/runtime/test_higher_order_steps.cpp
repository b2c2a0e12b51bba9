// Higher-order ops the engine has no runtime for (torch.cond, a user's Triton kernel, flex
// attention's templates) in a graph it plans: each is a group left out with its reason, and the
// groups that do not depend on it still run.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

TEST_CASE("a higher-order op without a runtime is left out by name, the rest still run", "[gpu]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[64][1]cuda:0\", p: \"b8[][]cuda:0\"):\n"
      "        a: \"f32[64][1]cuda:0\" = torch.ops.aten.relu.default(x)\n"
      "        true_graph_0 = self.true_graph_0\n"
      "        false_graph_0 = self.false_graph_0\n"
      "        cond = torch.ops.higher_order.cond(p, true_graph_0, false_graph_0, (a,))\n"
      "        c: \"f32[64][1]cuda:0\" = cond[0]\n"
      "        d: \"f32[64][1]cuda:0\" = torch.ops.aten.mul.Tensor(c, 2)\n"
      "        e: \"f32[64][1]cuda:0\" = torch.ops.aten.sin.default(x)\n"
      "        return (d, e)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "cond").graph;
  REQUIRE(g.find("cond"));
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const fusion::FusionPlan plan = fusion::plan(g, mode);
    const auto steps = gpu::plan_steps(g, plan, {}, mode == fusion::Mode::max_autotune, 1);
    bool named = false;
    for (const auto& s : steps.skipped) {
      named = named || s.why.find("higher_order.cond") != std::string::npos;
      CHECK(s.why.find("runs on a library kernel") == std::string::npos);
    }
    INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
    CHECK(named);
    CHECK(steps.ran_ops < steps.ops);
    CHECK(steps.ran_ops > 0);  // the relu and the sin do not depend on the cond
  }
}

TEST_CASE("a user's Triton kernel in the graph is left out by name, the rest still run", "[gpu]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[64][1]cuda:0\", y: \"f32[64][1]cuda:0\"):\n"
      "        a: \"f32[64][1]cuda:0\" = torch.ops.aten.relu.default(x)\n"
      "        empty: \"f32[64][1]cuda:0\" = torch.ops.aten.empty.memory_format([64], "
      "dtype = torch.float32, device = device(type='cuda', index=0), pin_memory = False)\n"
      "        triton_kernel_wrapper_functional_proxy = "
      "torch.ops.higher_order.triton_kernel_wrapper_functional(kernel_idx = 0, "
      "constant_args_idx = 0, grid = [(1, 1, 1)], tma_descriptor_metadata = {}, "
      "kwargs = {'x_ptr': a, 'y_ptr': y, 'out_ptr': empty}, tensors_to_clone = ['out_ptr']);  "
      "empty = None\n"
      "        getitem: \"f32[64][1]cuda:0\" = triton_kernel_wrapper_functional_proxy['out_ptr']\n"
      "        b: \"f32[64][1]cuda:0\" = torch.ops.aten.mul.Tensor(getitem, 2)\n"
      "        c: \"f32[64][1]cuda:0\" = torch.ops.aten.cos.default(y)\n"
      "        return (b, c)\n";
  const auto parsed = graph::parse_fx_readable(code, "user_triton");
  const graph::Graph& g = parsed.graph;
  REQUIRE(g.find("triton_kernel_wrapper_functional_proxy"));
  const fusion::FusionPlan plan = fusion::plan(g, fusion::Mode::default_mode);
  const auto steps = gpu::plan_steps(g, plan, {}, false, 1);
  bool named = false;
  for (const auto& s : steps.skipped) {
    named = named || s.why.find("triton_kernel_wrapper") != std::string::npos;
  }
  INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
  CHECK(named);
  CHECK(steps.ran_ops > 0);
  CHECK(steps.ran_ops < steps.ops);
}
