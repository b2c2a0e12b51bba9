// Adaptive average pooling to more than 1x1 as generated code, run on the CPU through the host
// shim: 5x5 pooled to 3x3, whose windows overlap and differ in size, against ATen's definition
// (rows from floor(o * 5 / 3) up to ceil((o + 1) * 5 / 3)).

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

TEST_CASE("adaptive average pooling averages each output's window of the input", "[codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[1, 1, 5, 5][25, 25, 5, 1]cuda:0\"):\n"
      "        pool: \"f32[1, 1, 3, 3][9, 9, 3, 1]cuda:0\" = "
      "torch.ops.aten._adaptive_avg_pool2d.default(x, [3, 3])\n"
      "        return (pool,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "adaptive").graph;
  fusion::KernelGroup group;
  group.name = "aten._adaptive_avg_pool2d";
  group.kind = fusion::GroupKind::eager_op;
  group.nodes = {*g.find("pool")};
  group.inputs = {*g.find("x")};
  group.outputs = {*g.find("pool")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  REQUIRE(k->params.size() == 2);
  std::vector<float> x(25);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i * i % 7) + 0.5f;
  std::vector<float> want(9);
  for (int oh = 0; oh < 3; ++oh) {
    for (int ow = 0; ow < 3; ++ow) {
      const int h0 = oh * 5 / 3, h1 = ((oh + 1) * 5 + 2) / 3;
      const int w0 = ow * 5 / 3, w1 = ((ow + 1) * 5 + 2) / 3;
      float sum = 0;
      for (int h = h0; h < h1; ++h) {
        for (int w = w0; w < w1; ++w) sum += x[static_cast<std::size_t>(h * 5 + w)];
      }
      want[static_cast<std::size_t>(oh * 3 + ow)] = sum / static_cast<float>((h1 - h0) * (w1 - w0));
    }
  }
  const auto dir = test::host_dir("fxscope-adaptive-pool-");
  void* lib = test::build_on_host(*k, dir);
  using Kernel = void (*)(const float*, float*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE((run && set_thread));
  std::vector<float> out(9, -1.0f);
  for (unsigned t = 0; t < 256; ++t) {
    set_thread(t, 256);
    run(x.data(), out.data());
  }
  dlclose(lib);
  for (std::size_t i = 0; i < 9; ++i) {
    INFO("output " << i);
    CHECK(out[i] == Approx(want[i]).epsilon(1e-6));
  }
}
