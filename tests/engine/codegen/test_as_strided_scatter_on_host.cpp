// aten.as_strided_scatter as generated code, run on the CPU through the host shim: a copy of the
// input whose storage, seen through as_strided(size, stride, offset), holds src (eager training
// graphs keep it where Inductor's reinplacing pass makes clone, as_strided and copy_), checked
// against ATen's definition; a view whose strides interleave is refused with the op named.

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

graph::Graph scatter_graph(const std::string& view) {
  return graph::parse_fx_readable(
             "class GraphModule(torch.nn.Module):\n"
             "    def forward(self, x: \"f32[4, 6][6, 1]cuda:0\", src: \"f32[2, 3][3, "
             "1]cuda:0\"):\n"
             "        out: \"f32[4, 6][6, 1]cuda:0\" = "
             "torch.ops.aten.as_strided_scatter.default(x, src, " +
                 view +
                 ")\n"
                 "        return (out,)\n",
             "as_strided_scatter")
      .graph;
}

fusion::KernelGroup scatter_group(const graph::Graph& g) {
  fusion::KernelGroup group;
  group.name = "aten.as_strided_scatter";
  group.kind = fusion::GroupKind::pointwise;
  group.nodes = {*g.find("out")};
  group.inputs = {*g.find("x"), *g.find("src")};
  group.outputs = {*g.find("out")};
  return group;
}

}  // namespace

TEST_CASE("as_strided_scatter writes src through the strided view of a copy of its input",
          "[codegen]") {
  // Storage positions 7 + 6a + 2b (a < 2, b < 3): 7, 9, 11, 13, 15, 17.
  const graph::Graph g = scatter_graph("[2, 3], [6, 2], 7");
  const fusion::KernelGroup group = scatter_group(g);
  REQUIRE(codegen::has_generated_kernel(g, group));
  const auto k = codegen::generate(g, group, {});
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  std::vector<float> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + static_cast<float>(i);
  const std::vector<float> src = {100, 200, 300, 400, 500, 600};
  std::vector<float> want = x;
  for (std::size_t a = 0; a < 2; ++a) {
    for (std::size_t b = 0; b < 3; ++b) want[7 + 6 * a + 2 * b] = src[a * 3 + b];
  }
  std::vector<float> out(24, -1.0f);
  std::map<std::string, void*> buffers = {
      {"x", x.data()}, {"src", const_cast<float*>(src.data())}, {"out", out.data()}};
  std::vector<void*> args;
  for (const auto& p : k->params) args.push_back(buffers.at(g.node(p.node).name));
  REQUIRE(args.size() == 3);
  test::run_one_block_on_host(*k, 256, args[0], args[1], args[2]);
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
}

TEST_CASE("as_strided_scatter into a view whose strides interleave is refused, named",
          "[codegen]") {
  // Strides 2 and 3 over sizes 3 and 2: positions 0, 3, 2, 5, 4, 7 interleave.
  const graph::Graph g = scatter_graph("[3, 2], [2, 3], 0");
  const auto k = codegen::generate(g, scatter_group(g), {});
  REQUIRE_FALSE(k);
  CHECK_THAT(k.error().message,
             Catch::Contains("out") && Catch::Contains("overlapping or interleaved view"));
}
