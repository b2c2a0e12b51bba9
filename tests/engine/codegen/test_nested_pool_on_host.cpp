// A max pool read by another max pool in one kernel (GoogLeNet's 2x2 pool before an inception
// block's 3x3 pool branch, fused by Inductor), generated and run on the CPU through the host
// shim: the inner window computes each outer window position's value with loop variables of its
// own, checked against the two pools computed one after the other.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

// Max pooling of a HxW plane (padding reads as -inf), square kernel K, stride S, padding P,
// output OHxOW.
std::vector<float> pool(const std::vector<float>& x, int h, int w, int k, int s, int p, int oh,
                        int ow) {
  std::vector<float> out(static_cast<std::size_t>(oh * ow), -INFINITY);
  for (int i = 0; i < oh; ++i) {
    for (int j = 0; j < ow; ++j) {
      for (int a = 0; a < k; ++a) {
        for (int b = 0; b < k; ++b) {
          const int r = i * s - p + a;
          const int c = j * s - p + b;
          if (r < 0 || r >= h || c < 0 || c >= w) continue;
          float& o = out[static_cast<std::size_t>(i * ow + j)];
          o = std::max(o, x[static_cast<std::size_t>(r * w + c)]);
        }
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a max pool of a max pool in one kernel reads each inner window at its own position",
          "[codegen]") {
  // 6x6 -> 2x2 window, stride 2 -> 3x3 -> 3x3 window, stride 1, padding 1 -> 3x3.
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[1, 1, 6, 6][36, 36, 6, 1]cuda:0\"):\n"
      "        p0 = torch.ops.prims._low_memory_max_pool_with_offsets.default(x, [2, 2], [2, 2], "
      "[0, 0], [1, 1], True)\n"
      "        a: \"f32[1, 1, 3, 3][9, 9, 3, 1]cuda:0\" = p0[0]\n"
      "        p1 = torch.ops.prims._low_memory_max_pool_with_offsets.default(a, [3, 3], [1, 1], "
      "[1, 1], [1, 1], True)\n"
      "        b: \"f32[1, 1, 3, 3][9, 9, 3, 1]cuda:0\" = p1[0]\n"
      "        return (b,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "nested_pool").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused__low_memory_max_pool_with_offsets_0";
  group.kind = fusion::GroupKind::pointwise;
  group.nodes = {*g.find("p0"), *g.find("a"), *g.find("p1"), *g.find("b")};
  group.inputs = {*g.find("x")};
  group.outputs = {*g.find("b")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? "" : k.error().message));
  REQUIRE(k);
  REQUIRE(k->params.size() == 2);
  REQUIRE(g.node(k->params[0].node).name == "x");
  std::vector<float> x(36);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>((i * 7919) % 37) - 18.0f;  // every window's maximum in another place
  }
  const std::vector<float> want = pool(pool(x, 6, 6, 2, 2, 0, 3, 3), 3, 3, 3, 1, 1, 3, 3);
  std::vector<float> out(9, 0.0f);
  test::run_one_block_on_host(*k, 256, x.data(), out.data());
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("element " << i);
    CHECK(out[i] == want[i]);
  }
}
