// Reductions over fewer elements than Inductor's unroll threshold in a pointwise group (a
// router's softmax over its experts, its top-k weights summed over k): Inductor's unrolled
// Pointwise computes them where the group reads them, and so does the group's kernel, rather
// than loading them from a buffer no kernel of the plan writes.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

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

TEST_CASE("a pointwise group sums top-k weights over k inline, then a weighted sum over k",
          "[codegen]") {
  // out = sum_k(x[b, k, :] * w[b, k] / sum_k w[b, k]) + bias[b, :]: sum_2 runs over rows of its
  // own (4 of 2), sum_4 over the kernel's elements (12, each of 2).
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 2][2, 1]cuda:0\", arg1_1: \"f32[4, 2, 3][6, 3, "
      "1]cuda:0\", arg2_1: \"f32[4, 3][3, 1]cuda:0\"):\n"
      "        sum_2: \"f32[4, 1][1, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg0_1, [-1], "
      "True)\n"
      "        div_1: \"f32[4, 2][2, 1]cuda:0\" = torch.ops.aten.div.Tensor(arg0_1, sum_2)\n"
      "        unsqueeze: \"f32[4, 2, 1][2, 1, 1]cuda:0\" = "
      "torch.ops.aten.unsqueeze.default(div_1, -1)\n"
      "        mul: \"f32[4, 2, 3][6, 3, 1]cuda:0\" = torch.ops.aten.mul.Tensor(arg1_1, "
      "unsqueeze)\n"
      "        sum_4: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(mul, [1])\n"
      "        add: \"f32[4, 3][3, 1]cuda:0\" = torch.ops.aten.add.Tensor(sum_4, arg2_1)\n"
      "        return (add,)\n";
  const auto g = graph::parse_fx_readable(code, "router").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_add_div_mul_sum_unsqueeze_0";
  group.kind = fusion::GroupKind::pointwise;
  for (const char* n : {"sum_2", "div_1", "unsqueeze", "mul", "sum_4", "add"}) {
    group.nodes.push_back(*g.find(n));
  }
  group.outputs = {*g.find("add")};
  const auto k = codegen::generate(g, group, {});
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  REQUIRE(k->params.size() == 4);  // w, x, bias and the output: no sum is loaded
  const auto dir = test::host_dir("fxscope-unrolled-sums-");
  void* lib = test::build_on_host(*k, dir);
  std::vector<float> w = {0.5f, 1.5f, 2.0f, 0.25f, 1.0f, 1.0f, 3.0f, 0.75f};
  std::vector<float> x(24);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.3f * static_cast<float>(i % 7) - 1.0f;
  std::vector<float> bias = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<float> out(12, -7.0f);
  std::vector<float*> by_param;
  for (const auto& p : k->params) {
    const std::string& name = g.node(p.node).name;
    by_param.push_back(name == "arg0_1"   ? w.data()
                       : name == "arg1_1" ? x.data()
                       : name == "arg2_1" ? bias.data()
                                          : out.data());
  }
  using Kernel = void (*)(void*, void*, void*, void*);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, k->entry.c_str()));
  REQUIRE(run);
  // No barriers: the one host thread takes each thread of the one block in turn.
  REQUIRE(k->grid == 1);
  const auto set_thread =
      reinterpret_cast<void (*)(unsigned, unsigned)>(dlsym(lib, "fx_set_thread"));
  REQUIRE(set_thread);
  for (unsigned t = 0; t < static_cast<unsigned>(k->block); ++t) {
    set_thread(t, static_cast<unsigned>(k->block));
    run(by_param[0], by_param[1], by_param[2], by_param[3]);
  }
  for (std::size_t b = 0; b < 4; ++b) {
    const float s = w[b * 2] + w[b * 2 + 1];
    for (std::size_t c = 0; c < 3; ++c) {
      float want = 0;
      for (std::size_t j = 0; j < 2; ++j) want += x[b * 6 + j * 3 + c] * (w[b * 2 + j] / s);
      want += bias[b * 3 + c];
      INFO("row " << b << " column " << c);
      CHECK(out[b * 3 + c] == Approx(want).epsilon(1e-6));
    }
  }
  dlclose(lib);
}
