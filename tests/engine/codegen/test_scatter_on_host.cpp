// aten.scatter as generated code, run on the CPU through the host shim: self copied, then each
// element of src stored along dim 1 at its index (a negative one counting from the end), checked
// against ATen's definition.

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

TEST_CASE("scatter stores src along its dim at each index over a copy of self", "[codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[3, 4][4, 1]cuda:0\", idx: \"i64[3, 2][2, 1]cuda:0\", "
      "src: \"f32[3, 2][2, 1]cuda:0\"):\n"
      "        out: \"f32[3, 4][4, 1]cuda:0\" = torch.ops.aten.scatter.src(x, 1, idx, src)\n"
      "        return (out,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "scatter").graph;
  fusion::KernelGroup group;
  group.name = "aten.scatter";
  group.kind = fusion::GroupKind::extern_kernel;
  group.nodes = {*g.find("out")};
  group.inputs = {*g.find("x"), *g.find("idx"), *g.find("src")};
  group.outputs = {*g.find("out")};
  REQUIRE(codegen::has_generated_kernel(g, group));
  const auto k = codegen::generate(g, group, {});
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  CHECK(k->grid == 1);
  const std::vector<float> x = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f,  5.5f,
                                6.5f, 7.5f, 8.5f, 9.5f, 10.5f, 11.5f};
  const std::vector<long long> idx = {1, 3, 0, -1, 2, 0};
  const std::vector<float> src = {100, 200, 300, 400, 500, 600};
  std::vector<float> want = x;
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t c = 0; c < 2; ++c) {
      const long long to = idx[r * 2 + c] < 0 ? idx[r * 2 + c] + 4 : idx[r * 2 + c];
      want[r * 4 + static_cast<std::size_t>(to)] = src[r * 2 + c];
    }
  }
  std::vector<float> out(12, -1.0f);
  std::map<std::string, void*> buffers = {{"x", const_cast<float*>(x.data())},
                                          {"idx", const_cast<long long*>(idx.data())},
                                          {"src", const_cast<float*>(src.data())},
                                          {"out", out.data()}};
  std::vector<void*> args;
  for (const auto& p : k->params) args.push_back(buffers.at(g.node(p.node).name));
  REQUIRE(args.size() == 4);
  const auto dir = test::host_dir("fxscope-scatter-on-host-");
  void* lib = test::build_on_host(*k, dir);
  using Kernel = void (*)(void*, void*, void*, void*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  run(args[0], args[1], args[2], args[3]);  // one thread: the block-stride loops do it all
  dlclose(lib);
  for (std::size_t i = 0; i < 12; ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
}
