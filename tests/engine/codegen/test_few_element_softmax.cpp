// A softmax over a few elements (a router's experts) that Inductor fuses into one pointwise
// kernel (its unrolled Pointwise computes prepare_softmax_online where it is read): the group's
// kernel computes the statistics itself, a persistent online softmax over the short rows, rather
// than loading them from a buffer no kernel of the plan writes.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

TEST_CASE("a pointwise group computes a few-element softmax's statistics inline", "[codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[6, 4][4, 1]cuda:0\"):\n"
      "        pso = torch.ops.prims.prepare_softmax_online.default(arg0_1, -1)\n"
      "        getitem_10: \"f32[6, 1][1, 1]cuda:0\" = pso[0]\n"
      "        getitem_11: \"f32[6, 1][1, 1]cuda:0\" = pso[1];  pso = None\n"
      "        sub: \"f32[6, 4][4, 1]cuda:0\" = torch.ops.aten.sub.Tensor(arg0_1, getitem_10)\n"
      "        exp: \"f32[6, 4][4, 1]cuda:0\" = torch.ops.aten.exp.default(sub)\n"
      "        div: \"f32[6, 4][4, 1]cuda:0\" = torch.ops.aten.div.Tensor(exp, getitem_11)\n"
      "        return (div,)\n";
  const auto g = graph::parse_fx_readable(code, "softmax").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_div_exp_prepare_softmax_online_sub_0";
  group.kind = fusion::GroupKind::pointwise;
  for (const char* n : {"pso", "sub", "exp", "div"}) group.nodes.push_back(*g.find(n));
  group.outputs = {*g.find("div")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  // One input and one output: the statistics are no param of the kernel.
  REQUIRE(k->params.size() == 2);
  CHECK(g.node(k->params[0].node).name == "arg0_1");
  CHECK(k->summary.find("softmax") != std::string::npos);
}
