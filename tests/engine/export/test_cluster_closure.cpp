#include <catch2/catch.hpp>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/export/cluster_closure.h"
#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "samples.h"

using namespace fxscope;

namespace {

graph::Graph parse(const std::string& body) {
  return graph::parse_fx_readable("class GraphModule(torch.nn.Module):\n" + body, "g").graph;
}

graph::NodeId id(const graph::Graph& g, const std::string& name) {
  const auto found = g.find(name);
  REQUIRE(found);
  return *found;
}

// Per node of G, its cluster as MEMBERS name it (-1 for the others).
std::vector<int> clusters(const graph::Graph& g,
                          std::initializer_list<std::pair<const char*, int>> members) {
  std::vector<int> cluster_of(g.size(), -1);
  for (const auto& [name, k] : members) cluster_of[id(g, name)] = k;
  return cluster_of;
}

}  // namespace

TEST_CASE("a getitem between two members of a kernel is drawn in it", "[export]") {
  // The batch norm's kernel computes var_mean and reads its mean back through a getitem.
  const graph::Graph g = parse(
      "    def forward(self, arg0_1: \"f32[8, 64]\"):\n"
      "        var_mean = torch.ops.aten.var_mean.correction(arg0_1, [0], correction = 0)\n"
      "        getitem: \"f32[64]\" = var_mean[1]\n"
      "        sub: \"f32[8, 64]\" = torch.ops.aten.sub.Tensor(arg0_1, getitem)\n"
      "        getitem_1: \"f32[64]\" = var_mean[0]\n"
      "        return (sub, getitem_1)\n");
  const std::vector<int> cluster_of = clusters(g, {{"var_mean", 0}, {"sub", 0}});
  CHECK(exporting::cluster_cycles(g, cluster_of) == 1);

  const std::vector<int> drawn = exporting::drawn_clusters(g, cluster_of);
  CHECK(drawn[id(g, "getitem")] == 0);
  // The variance's getitem feeds only the output: no member's, it stays outside.
  CHECK(drawn[id(g, "getitem_1")] == -1);
  CHECK(drawn[id(g, "arg0_1")] == -1);
  CHECK(exporting::cluster_cycles(g, drawn) == 0);
}

TEST_CASE("a bias cast the bias add's kernel computes is drawn outside it", "[export]") {
  // Inductor runs the convolution without its bias and adds the cast bias after it, in one
  // kernel with the cast: in the FX graph the cast feeds the convolution, an earlier kernel.
  const graph::Graph g = parse(
      "    def forward(self, arg0_1: \"bf16[1, 8, 4, 4]\", arg1_1: \"f32[8, 8, 1, 1]\", "
      "arg2_1: \"f32[8]\"):\n"
      "        convert_element_type: \"bf16[8]\" = torch.ops.prims.convert_element_type.default("
      "arg2_1, torch.bfloat16)\n"
      "        convert_element_type_1: \"bf16[8, 8, 1, 1]\" = "
      "torch.ops.prims.convert_element_type.default(arg1_1, torch.bfloat16)\n"
      "        convolution: \"bf16[1, 8, 4, 4]\" = torch.ops.aten.convolution.default(arg0_1, "
      "convert_element_type_1, convert_element_type, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)\n"
      "        relu: \"bf16[1, 8, 4, 4]\" = torch.ops.aten.relu.default(convolution)\n"
      "        add: \"bf16[1, 8, 4, 4]\" = torch.ops.aten.add.Tensor(relu, convert_element_type)\n"
      "        return (add,)\n");
  const std::vector<int> cluster_of = clusters(g, {{"convert_element_type_1", 0},
                                                   {"convolution", 1},
                                                   {"convert_element_type", 2},
                                                   {"relu", 2},
                                                   {"add", 2}});
  CHECK(exporting::cluster_cycles(g, cluster_of) == 1);

  const std::vector<int> drawn = exporting::drawn_clusters(g, cluster_of);
  CHECK(drawn[id(g, "convert_element_type")] == -1);
  CHECK(drawn[id(g, "relu")] == 2);
  CHECK(drawn[id(g, "add")] == 2);
  CHECK(drawn[id(g, "convolution")] == 1);
  CHECK(exporting::cluster_cycles(g, drawn) == 0);
}

TEST_CASE("a layout copy of a graph input draws the input it copies", "[export]") {
  // A training forward's convolution weight, saved for the backward: Inductor copies it to
  // channels-last while lowering the input, a kernel naming no node (ResNet-50's fp32 step).
  fusion::FusionPlan plan;
  fusion::KernelGroup copy;
  copy.name = "triton_poi_fused_0";
  copy.note = std::string(fusion::kLayoutCopyNote);
  copy.read_inputs = {0};
  fusion::KernelGroup conv;
  conv.name = "extern_kernels.convolution";
  conv.kind = fusion::GroupKind::extern_kernel;
  conv.nodes = {2};
  plan.groups = {copy, conv};
  const std::vector<int> owner = exporting::drawn_owners(plan, 3);
  CHECK(owner[0] == 0);
  CHECK(owner[1] == -1);
  CHECK(owner[2] == 1);
}

TEST_CASE("every corpus graph's kernels are drawn in an order dot can keep", "[export]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // Drawn as the plans list them, 45 of the corpus logs' default plans put kernels in a cycle
  // (417 cycles), and dot turns edges upwards and lays a training step out as one wide row.
  std::size_t graphs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sample("corpus"))) {
    if (!entry.is_directory()) continue;
    const std::string path = entry.path().string();
    INFO(path);
    auto log = trace::read_trace(path);
    REQUIRE(log);
    auto planned = exporting::plan_unit(*log, {"", fusion::Mode::default_mode});
    if (!planned) continue;  // a log whose first unit has no post-grad graph
    const graph::Document doc = exporting::unit_document(*planned);
    for (const exporting::DotGraph& dg : exporting::dot_graphs(doc)) {
      INFO(dg.title);
      CHECK(exporting::cluster_cycles(*dg.graph, dg.group_of) == 0);
      ++graphs;
    }
  }
  CHECK(graphs >= 63);
}
