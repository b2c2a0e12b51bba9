// Max pooling's backward as generated code, run on the CPU through the host shim: Inductor's
// window offsets turned into flat indices and each input element's gradient summed over the
// windows whose maximum it was (two windows sharing one here), checked against the definition.

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

TEST_CASE("max pooling's backward adds each window's gradient at the element it picked",
          "[codegen]") {
  // A 3x3 window, stride 2, padding 1 over a 4x4 plane: a 2x2 output.
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, grad: \"f32[1, 1, 2, 2][4, 4, 2, 1]cuda:0\", "
      "x: \"f32[1, 1, 4, 4][16, 16, 4, 1]cuda:0\", off: \"i8[1, 1, 2, 2][4, 4, 2, 1]cuda:0\"):\n"
      "        idx: \"i64[1, 1, 2, 2][4, 4, 2, 1]cuda:0\" = "
      "torch.ops.prims._low_memory_max_pool_offsets_to_indices.default(off, [3, 3], [4, 4], "
      "[2, 2], [1, 1], [1, 1])\n"
      "        mpb: \"f32[1, 1, 4, 4][16, 16, 4, 1]cuda:0\" = "
      "torch.ops.aten.max_pool2d_with_indices_backward.default(grad, x, [3, 3], [2, 2], [1, 1], "
      "[1, 1], False, idx)\n"
      "        return (mpb,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "max_pool_backward").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_max_pool2d_with_indices_backward_0";
  group.kind = fusion::GroupKind::pointwise;
  group.nodes = {*g.find("idx"), *g.find("mpb")};
  group.inputs = {*g.find("grad"), *g.find("off")};
  group.outputs = {*g.find("mpb")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  // Windows (0,0) and (0,1) both pick element (1,1); (1,0) picks (1,0); (1,1) picks (3,3).
  const std::vector<signed char> off = {8, 6, 1, 8};
  const std::vector<float> grad = {1.0f, 10.0f, 100.0f, 1000.0f};
  std::vector<float> want(16, 0.0f);
  for (int oh = 0; oh < 2; ++oh) {
    for (int ow = 0; ow < 2; ++ow) {
      const int o = off[static_cast<std::size_t>(oh * 2 + ow)];
      const int ih = oh * 2 - 1 + o / 3;
      const int iw = ow * 2 - 1 + o % 3;
      want[static_cast<std::size_t>(ih * 4 + iw)] += grad[static_cast<std::size_t>(oh * 2 + ow)];
    }
  }
  REQUIRE(want[5] == 11.0f);
  const auto dir = test::host_dir("fxscope-max-pool-backward-");
  void* lib = test::build_on_host(*k, dir);
  std::map<std::string, void*> buffers;
  std::vector<float> out(16, -1.0f);
  buffers["grad"] = const_cast<float*>(grad.data());
  buffers["off"] = const_cast<signed char*>(off.data());
  buffers["mpb"] = out.data();
  std::vector<void*> args;
  for (const auto& p : k->params) {
    INFO(g.node(p.node).name);
    REQUIRE(buffers.count(g.node(p.node).name));
    args.push_back(buffers.at(g.node(p.node).name));
  }
  REQUIRE(args.size() == 3);
  using Kernel = void (*)(void*, void*, void*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE((run && set_thread));
  for (unsigned t = 0; t < 256; ++t) {
    set_thread(t, 256);
    run(args[0], args[1], args[2]);
  }
  dlclose(lib);
  for (std::size_t i = 0; i < 16; ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
}
