// A permute or transpose of a square matrix inside a generated kernel moves its elements even
// though its sizes are its input's: the cast of a square f32 weight to bf16 stored as its
// transpose (every linear layer of an autocast training step whose weight is square) is run on
// the CPU through the host shim and checked element by element.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "host_shim.h"

using namespace fxscope;

namespace {

// mul = arg0_1 * 2 (4 x 4), then VIEW of it, stored as the group's output.
graph::Graph square_graph(const std::string& view) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4, 4][4, 1]cuda:0\"):\n"
      "        mul: \"f32[4, 4][4, 1]cuda:0\" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)\n"
      "        moved: \"f32[4, 4][1, 4]cuda:0\" = " +
      view +
      "\n"
      "        return (moved,)\n";
  return graph::parse_fx_readable(code, "square").graph;
}

// The kernel of the group {mul, moved} of G, which stores MOVED.
codegen::GeneratedKernel generated(const graph::Graph& g) {
  auto k = codegen::generate(
      g,
      test::group_of(g, "triton_poi_fused_mul_permute_0", fusion::GroupKind::pointwise,
                     {"mul", "moved"}, {"arg0_1"}, {"moved"}),
      {});
  REQUIRE(k);
  REQUIRE(k->params.size() == 2);
  return std::move(*k);
}

// MOVED's storage after the kernel ran on IN: a grid-stride loop of 256-thread blocks, so each
// element is one thread of block 0.
std::vector<float> run_group(const graph::Graph& g, const std::vector<float>& in) {
  std::vector<float> out(in.size(), -1.0f);
  test::run_one_block_on_host(generated(g), 256, in.data(), out.data());
  return out;
}

}  // namespace

TEST_CASE("a square permute or transpose stored by a kernel keeps each element in its place",
          "[codegen]") {
  std::vector<float> in(16);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  for (const std::string view :
       {"torch.ops.aten.permute.default(mul, [1, 0])", "torch.ops.aten.t.default(mul)",
        "torch.ops.aten.transpose.int(mul, 0, 1)"}) {
    INFO(view);
    // MOVED is a view of MUL's buffer (strides 1, 4): its storage holds mul's elements where mul
    // keeps them, so moved[c][r] (at c + 4 r) is mul[r][c] = 2 * arg0_1[r][c].
    const auto out = run_group(square_graph(view), in);
    for (std::size_t r = 0; r < 4; ++r) {
      for (std::size_t c = 0; c < 4; ++c) {
        INFO("mul[" << r << "][" << c << "]");
        CHECK(out[r * 4 + c] == 2.0f * in[r * 4 + c]);
      }
    }
  }
}

TEST_CASE("a transposed output is walked in its memory order", "[codegen]") {
  // An 8 x 4 f32 weight cast to bf16 and transposed for its GEMM (every linear layer of an
  // autocast training step): the transpose is a view of the cast's buffer, so a kernel that walks
  // the view's logical order writes (and reads) 4 elements apart from thread to thread. Walked in
  // memory order, thread i writes element i; each element still lands where the view puts it.
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[8, 4][4, 1]cuda:0\"):\n"
      "        mul: \"f32[8, 4][4, 1]cuda:0\" = torch.ops.aten.mul.Tensor(arg0_1, 2.0)\n"
      "        moved: \"f32[4, 8][1, 4]cuda:0\" = torch.ops.aten.permute.default(mul, [1, 0])\n"
      "        return (moved,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "tall").graph;
  const std::string source = generated(g).source;
  INFO(source);
  // The store's offset is the walk's position: (i % 4) * 1 + (i / 4) * 4, not (i / 8) + (i % 8)
  // * 4.
  CHECK(source.find("p_moved[((i) % 4) + ((i) / 4) * 4]") != std::string::npos);
  std::vector<float> in(32);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  const std::vector<float> out = run_group(g, in);
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("storage element " << i);
    CHECK(out[i] == 2.0f * in[i]);  // moved[c][r] lives at c + 4 r, where mul[r][c] lives
  }
}

TEST_CASE("a channels-last output is walked channel-innermost with each element in its place",
          "[codegen]") {
  // A batch norm's scale of a channels-last activation: x (2 x 3 x 2 x 2, NHWC in memory) times
  // a per-channel weight, stored channels-last. The walk follows memory (channel fastest), the
  // weight is read per channel and each output lands at its NHWC place.
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[2, 3, 2, 2][12, 1, 6, 3]cuda:0\", "
      "arg1_1: \"f32[3, 1, 1][1, 1, 1]cuda:0\"):\n"
      "        moved: \"f32[2, 3, 2, 2][12, 1, 6, 3]cuda:0\" = "
      "torch.ops.aten.mul.Tensor(arg0_1, arg1_1)\n"
      "        return (moved,)\n";
  const graph::Graph g = graph::parse_fx_readable(code, "channels_last").graph;
  const auto k =
      codegen::generate(g,
                        test::group_of(g, "triton_poi_fused_mul_0", fusion::GroupKind::pointwise,
                                       {"moved"}, {"arg0_1", "arg1_1"}, {"moved"}),
                        {});
  REQUIRE(k);
  INFO(k->source);
  CHECK(k->source.find("p_arg1_1[((i) % 3)]") != std::string::npos);  // channel = i % 3
  std::vector<float> x(24), w = {1.0f, 10.0f, 100.0f}, out(24, -1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  test::run_one_block_on_host(*k, 256, x.data(), w.data(), out.data());
  for (std::size_t at = 0; at < out.size(); ++at) {
    INFO("NHWC storage element " << at);
    CHECK(out[at] == x[at] * w[at % 3]);  // element at holds channel at % 3
  }
}
