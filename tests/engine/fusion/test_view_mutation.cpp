// The reinplaced as_strided_scatter of a training step's backward (torch/_inductor/fx_passes/
// reinplace.py: clone -> as_strided -> copy_): Inductor stores the fill read by as_strided as it
// is lowered (run_node's is_input_for_as_strided), so the clone's kernel holds the clone alone;
// the copy_ into the clone's view is a mutation (MutationLayoutSHOULDREMOVE), a kernel of its own
// that the clone's kernel never fuses with (StarDep), launched before what reads the clone after
// it (mutation_renames). RegNet's and Swin-T's pooling backward, as in their output code.

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "graph_lookup.h"

using namespace fxscope;

namespace {

const char* kScatter = R"(class GraphModule(torch.nn.Module):
    def forward(self, mm: "f16[4, 8][8, 1]cuda:0", w: "f16[4, 8, 3, 3][72, 9, 3, 1]cuda:0", mm_1: "f16[4, 8][8, 1]cuda:0"):
        full_1: "f16[32][1]cuda:0" = torch.ops.aten.full.default([32], 0, dtype = torch.float16, layout = torch.strided, device = device(type='cuda', index=0), pin_memory = False)
        clone: "f16[32][1]cuda:0" = torch.ops.aten.clone(full_1)
        as_strided_default: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.as_strided.default(clone, [4, 8], [8, 1], 0)
        copy__default: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.copy_.default(as_strided_default, mm);  as_strided_default = copy__default = None
        as_strided_1: "f16[4, 8, 1, 1][8, 1, 1, 1]cuda:0" = torch.ops.aten.as_strided.default(clone, [4, 8, 1, 1], [8, 1, 1, 1], 0);  clone = None
        expand_1: "f16[4, 8, 3, 3][8, 1, 0, 0]cuda:0" = torch.ops.aten.expand.default(as_strided_1, [4, 8, 3, 3])
        div: "f16[4, 8, 3, 3][72, 9, 3, 1]cuda:0" = torch.ops.aten.div.Scalar(expand_1, 9)
        mul: "f16[4, 8, 3, 3][72, 9, 3, 1]cuda:0" = torch.ops.aten.mul.Tensor(div, w)
        as_strided_2: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.as_strided.default(full_1, [4, 8], [8, 1], 0)
        copy__1: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.copy_.default(as_strided_2, mm_1);  as_strided_2 = copy__1 = None
        as_strided_3: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.as_strided.default(full_1, [4, 8], [8, 1], 0);  full_1 = None
        add: "f16[4, 8][8, 1]cuda:0" = torch.ops.aten.add.Tensor(as_strided_3, 1)
        return (mul, add)
)";

}  // namespace

TEST_CASE("a copy_ into a view of a computed buffer is a mutation launched before its readers",
          "[fusion]") {
  const graph::ParsedGraph parsed = graph::parse_fx_readable(kScatter, "view_mutation");
  const graph::Graph& g = parsed.graph;
  const fusion::FusionPlan plan = fusion::plan(g, fusion::Mode::default_mode);
  std::size_t fill = plan.groups.size();
  std::size_t clone = plan.groups.size();
  std::size_t copy = plan.groups.size();
  std::size_t reader = plan.groups.size();
  std::size_t copy_into_fill = plan.groups.size();
  std::size_t fill_reader = plan.groups.size();
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const std::set<std::string> n = test::node_names(g, plan.groups[k]);
    INFO(plan.groups[k].name);
    if (n == std::set<std::string>{"full_1"}) fill = k;
    if (n == std::set<std::string>{"clone"}) clone = k;
    if (n == std::set<std::string>{"as_strided_default", "copy__default"}) copy = k;
    if (n.contains("mul")) reader = k;
    if (n == std::set<std::string>{"as_strided_2", "copy__1"}) copy_into_fill = k;
    if (n.contains("add")) fill_reader = k;
  }
  // The fill is stored for as_strided as it is lowered, so the clone's kernel gathers nothing.
  REQUIRE(fill < plan.groups.size());
  REQUIRE(clone < plan.groups.size());
  REQUIRE(copy < plan.groups.size());
  REQUIRE(reader < plan.groups.size());
  REQUIRE(copy_into_fill < plan.groups.size());
  REQUIRE(fill_reader < plan.groups.size());
  CHECK(clone < copy);
  CHECK(copy < reader);
  CHECK(test::node_names(g, plan.groups[reader]) ==
        std::set<std::string>{"as_strided_1", "expand_1", "div", "mul"});
  CHECK(fill < copy_into_fill);
  CHECK(copy_into_fill < fill_reader);
  // What reads the clone after the copy reads the mutation's output (mutation_renames).
  const graph::NodeId copied = *g.find("copy__default");
  CHECK(std::find(plan.groups[reader].inputs.begin(), plan.groups[reader].inputs.end(), copied) !=
        plan.groups[reader].inputs.end());
}

TEST_CASE("a copy_ into a computed view stores into the viewed buffer, one into an input does not",
          "[codegen]") {
  const graph::ParsedGraph parsed = graph::parse_fx_readable(kScatter, "view_mutation");
  const graph::Graph& g = parsed.graph;
  const auto alias = codegen::alias_of(g, *g.find("copy__default"), {});
  REQUIRE(alias);
  CHECK(alias->base == *g.find("clone"));
  CHECK(alias->offset == 0);
  const std::string text = R"(class GraphModule(torch.nn.Module):
    def forward(self, primals_1: "f32[4][1]cuda:0"):
        add: "f32[4][1]cuda:0" = torch.ops.aten.add.Tensor(primals_1, 1)
        copy_: "f32[4][1]cuda:0" = torch.ops.aten.copy_.default(primals_1, add)
        slice_1: "f32[2][1]cuda:0" = torch.ops.aten.slice.Tensor(primals_1, 0, 2, 4)
        copy__1: "f32[2][1]cuda:0" = torch.ops.aten.copy_.default(slice_1, add)
        return (add,)
)";
  const graph::ParsedGraph inputs = graph::parse_fx_readable(text, "input_mutation");
  CHECK_FALSE(codegen::alias_of(inputs.graph, *inputs.graph.find("copy_"), {}));
  CHECK_FALSE(codegen::alias_of(inputs.graph, *inputs.graph.find("copy__1"), {}));
}
