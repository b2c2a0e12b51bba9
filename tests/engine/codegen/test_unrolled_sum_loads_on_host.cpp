// A few-element sum inside a pointwise kernel is computed at each element it is loaded at: a
// rotary embedding's backward reads the gradient summed over a dim of 2 both at its own element
// and half a head away (slice, neg, slice_scatter). Run on the CPU through the host shim and
// checked element by element against the graph's definition.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

TEST_CASE("a few-element sum loaded at another element is that element's sum", "[codegen]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 2, 8][16, 8, 1]cuda:0\"):\n"
      "        sum_1: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg0_1, [1])\n"
      "        slice_1: \"f32[4, 4][8, 1]cuda:0\" = torch.ops.aten.slice.Tensor(sum_1, 1, 0, 4)\n"
      "        neg: \"f32[4, 4][4, 1]cuda:0\" = torch.ops.aten.neg.default(slice_1)\n"
      "        full: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.full.default([4, 8], 0, dtype = "
      "torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory "
      "= False)\n"
      "        slice_scatter: \"f32[4, 8][8, 1]cuda:0\" = "
      "torch.ops.aten.slice_scatter.default(full, neg, 1, 4, 8)\n"
      "        add: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.add.Tensor(slice_scatter, sum_1)\n"
      "        return (add,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "unrolled_sum").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_add_neg_slice_slice_scatter_sum_0";
  group.kind = fusion::GroupKind::pointwise;
  for (const char* n : {"sum_1", "slice_1", "neg", "full", "slice_scatter", "add"}) {
    group.nodes.push_back(*g.find(n));
  }
  group.inputs = {*g.find("arg0_1")};
  group.outputs = {*g.find("add")};
  const auto k = codegen::generate(g, group, {});
  REQUIRE(k);
  INFO(k->source);
  CHECK(k->summary.find("pointwise") == 0);
  REQUIRE(k->params.size() == 2);
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 7) % 13) - 6.0f;
  std::vector<float> out(32, -1000.0f);
  test::run_one_block_on_host(*k, 256, static_cast<const float*>(in.data()), out.data());
  const auto sum = [&](std::size_t r, std::size_t c) {
    return in[r * 16 + c] + in[r * 16 + 8 + c];
  };
  for (std::size_t r = 0; r < 4; ++r) {
    for (std::size_t c = 0; c < 8; ++c) {
      INFO("add[" << r << "][" << c << "]");
      const float shifted = c >= 4 ? -sum(r, c - 4) : 0.0f;
      CHECK(out[r * 8 + c] == shifted + sum(r, c));
    }
  }
}

TEST_CASE("a Scatter's values read a few-element sum at permuted positions", "[codegen]") {
  // T5's relative-position backward: the values scattered are a permute of a sum over a dim of
  // 2; each value is the sum at its own (permuted) element, not the row the thread walks.
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 2, 8][16, 8, 1]cuda:0\", arg1_1: "
      "\"i64[8][1]cuda:0\"):\n"
      "        sum_1: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten.sum.dim_IntList(arg0_1, [1])\n"
      "        permute: \"f32[8, 4][1, 8]cuda:0\" = torch.ops.aten.permute.default(sum_1, [1, 0])\n"
      "        full: \"f32[16, 4][4, 1]cuda:0\" = torch.ops.aten.full.default([16, 4], 0, dtype = "
      "torch.float32, layout = torch.strided, device = device(type='cuda', index=0), pin_memory "
      "= False)\n"
      "        index_put: \"f32[16, 4][4, 1]cuda:0\" = "
      "torch.ops.aten.index_put.default(full, [arg1_1], permute, True)\n"
      "        return (index_put,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "scatter_sum").graph;
  fusion::KernelGroup group;
  group.name = "triton_poi_fused_full_index_put_permute_sum_0";
  group.kind = fusion::GroupKind::pointwise;
  for (const char* n : {"sum_1", "permute", "full", "index_put"}) group.nodes.push_back(*g.find(n));
  group.inputs = {*g.find("arg0_1"), *g.find("arg1_1")};
  group.outputs = {*g.find("index_put")};
  const auto k = codegen::generate(g, group, {});
  REQUIRE(k);
  INFO(k->source);
  REQUIRE(k->params.size() == 3);
  // The kernel takes the indices, the input, then the output (its params' order).
  REQUIRE(k->source.find("params: arg1_1, arg0_1, index_put (written)") != std::string::npos);
  std::vector<float> in(64);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>((i * 5) % 11) - 5.0f;
  const std::vector<long long> index{3, 0, 7, 3, 15, 9, 0, 12};  // rows 3 and 0 twice
  std::vector<float> out(64, 0.0f);  // the runtime copies self (zeros) before the Scatter
  test::run_one_block_on_host(*k, 256, index.data(), static_cast<const float*>(in.data()),
                              out.data());
  std::vector<float> want(64, 0.0f);
  for (std::size_t j = 0; j < 8; ++j) {
    for (std::size_t r = 0; r < 4; ++r) {
      // permute[j][r] = sum_1[r][j] = arg0_1[r][0][j] + arg0_1[r][1][j]
      want[static_cast<std::size_t>(index[j]) * 4 + r] += in[r * 16 + j] + in[r * 16 + 8 + j];
    }
  }
  for (std::size_t i = 0; i < 64; ++i) {
    INFO("index_put element " << i);
    CHECK(out[i] == Approx(want[i]));
  }
}
