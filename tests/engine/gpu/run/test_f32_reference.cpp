// The f32 yardstick of low-precision modes, without a GPU: which values the widened graph
// computes in f32 (random numbers keep their dtype), its inputs' values kept exactly, and the
// bound PyTorch's accuracy check puts around the f32 run.

#include <catch2/catch.hpp>

#include <cmath>

#include <cstring>
#include <vector>

#include "fxscope/gpu/f32_reference.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/graph/fx_readable_parser.h"

using namespace fxscope;

namespace {

const char* kBf16Graph =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"bf16[2][1]cuda:0\", n: \"i64[2][1]cuda:0\"):\n"
    "        r: \"bf16[2][1]cuda:0\" = torch.ops.aten.rand_like.default(x)\n"
    "        y: \"bf16[2][1]cuda:0\" = torch.ops.aten.mul.Tensor(x, r)\n"
    "        z: \"f32[2][1]cuda:0\" = torch.ops.prims.convert_element_type.default(y, "
    "torch.float32)\n"
    "        return (y, z, n)\n";

gpu::HostOutput output(const std::string& dtype, const std::vector<double>& values) {
  gpu::HostOutput o;
  o.meta = *graph::parse_tensor_meta(dtype + "[" + std::to_string(values.size()) + "][1]cuda:0");
  o.bytes.resize(values.size() * gpu::element_bytes(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    gpu::write_element(dtype, o.bytes.data(), static_cast<std::int64_t>(i), values[i]);
  }
  return o;
}

}  // namespace

TEST_CASE("the widened graph computes bf16 values in f32, random numbers in their own dtype",
          "[gpu]") {
  const graph::Graph g = graph::parse_fx_readable(kBf16Graph, "bf16").graph;
  const auto wide = gpu::widened_to_f32(g);
  REQUIRE(wide);
  CHECK(wide->node(*wide->find("x")).meta->dtype == "f32");
  CHECK(wide->node(*wide->find("y")).meta->dtype == "f32");
  CHECK(wide->node(*wide->find("r")).meta->dtype == "bf16");
  CHECK(wide->node(*wide->find("n")).meta->dtype == "i64");
  // The original is untouched; an f32 graph has nothing to widen.
  CHECK(g.node(*g.find("y")).meta->dtype == "bf16");
  CHECK_FALSE(gpu::widened_to_f32(*wide));
}

TEST_CASE("widened inputs hold the same values as f32", "[gpu]") {
  const graph::Graph g = graph::parse_fx_readable(kBf16Graph, "bf16").graph;
  const std::vector<std::byte> n = output("i64", {7, -3}).bytes;
  const std::vector<std::vector<std::byte>> inputs = {output("bf16", {1.5, -2.25}).bytes, n};
  const auto wide = gpu::widened_inputs(g, inputs);
  REQUIRE(wide.size() == 2);
  REQUIRE(wide[0].size() == 8);
  CHECK(gpu::read_element("f32", wide[0].data(), 0) == 1.5);
  CHECK(gpu::read_element("f32", wide[0].data(), 1) == -2.25);
  CHECK(wide[1] == n);
}

TEST_CASE("a bf16 result within 3x eager's distance to the f32 run passes, a farther one does not",
          "[gpu]") {
  const gpu::HostOutput reference = output("f32", {1.0, 2.0});
  const gpu::HostOutput eager = output("bf16", {1.0, 2.015625});  // 0.0078 from the f32 run
  double distance = 0;
  double eager_distance = 0;
  CHECK(gpu::near_as_eager_to_reference(eager, output("bf16", {1.0, 2.03125}), reference, 0.03, {},
                                        distance, eager_distance));
  // Root-mean-square distances, as torch._dynamo.utils.same measures them.
  CHECK(eager_distance == Approx(0.015625 / std::sqrt(2.0)));
  CHECK(distance == Approx(0.03125 / std::sqrt(2.0)));
  CHECK_FALSE(gpu::near_as_eager_to_reference(eager, output("bf16", {1.0, 2.125}), reference, 0.03,
                                              {}, distance, eager_distance));
}

TEST_CASE("one element rounded apart weighs by its share of the tensor against the f32 run",
          "[gpu]") {
  // A gradient near zero over 100 elements: eager is off the f32 run by 1/256 everywhere, the
  // fused result matches it but at one element, where bf16's rounding gave it another value.
  // Its largest difference is 4 times eager's (a max-norm bound of 3x fails it); its
  // root-mean-square distance is 0.4 times eager's, within PyTorch's bound.
  std::vector<double> f32(100, 0.5);
  std::vector<double> eager_values(100, 0.5 + 1.0 / 256);
  std::vector<double> fused(100, 0.5);
  fused[7] = 0.5 + 4.0 / 256;
  double distance = 0;
  double eager_distance = 0;
  CHECK(gpu::near_as_eager_to_reference(output("bf16", eager_values), output("bf16", fused),
                                        output("f32", f32), 0.03, {}, distance, eager_distance));
  CHECK(eager_distance == Approx(1.0 / 256));
  CHECK(distance == Approx(0.4 / 256));
  // Wrong everywhere by as much: far outside.
  CHECK_FALSE(gpu::near_as_eager_to_reference(
      output("bf16", eager_values), output("bf16", std::vector<double>(100, 0.5 + 16.0 / 256)),
      output("f32", f32), 0.03, {}, distance, eager_distance));
}

TEST_CASE("the multiplier of eager's distance follows the result as PyTorch's check does",
          "[gpu]") {
  const auto meta = [](const char* text) { return *graph::parse_tensor_meta(text); };
  // 3 for an AMP result, 2 for an f32 one of 1,000 elements or more under a tight tolerance.
  CHECK(gpu::same_multiplier(meta("bf16[64, 64][64, 1]cuda:0"), {}, 0.03) == 3.0);
  CHECK(gpu::same_multiplier(meta("f16[64, 64][64, 1]cuda:0"), {}, 0.01) == 3.0);
  CHECK(gpu::same_multiplier(meta("f32[64, 64][64, 1]cuda:0"), {}, 0.001) == 2.0);
  // Where noise dominates: few elements, a 1x1 convolution's shape, a loose tolerance.
  CHECK(gpu::same_multiplier(meta("f32[20, 40][40, 1]cuda:0"), {}, 0.001) == 3.0);
  CHECK(gpu::same_multiplier(meta("f32[8, 512, 1, 1][512, 1, 1, 1]cuda:0"), {}, 0.001) == 3.0);
  CHECK(gpu::same_multiplier(meta("f32[64, 64][64, 1]cuda:0"), {}, 0.03) == 3.0);
  // Sizes a run binds count as bound.
  CHECK(gpu::same_multiplier(meta("f32[s0, 64][64, 1]cuda:0"), {{"s0", 8}}, 0.001) == 3.0);
  CHECK(gpu::same_multiplier(meta("f32[s0, 64][64, 1]cuda:0"), {{"s0", 64}}, 0.001) == 2.0);

  // 2.5 times eager's distance: within for a bf16 result, outside for an f32 one of 2,000.
  std::vector<double> f32(2000, 0.5);
  std::vector<double> eager_values(2000, 0.5 + 1.0 / 256);
  std::vector<double> fused(2000, 0.5 + 2.5 / 256);
  double distance = 0;
  double eager_distance = 0;
  CHECK(gpu::near_as_eager_to_reference(output("bf16", eager_values), output("bf16", fused),
                                        output("f32", f32), 0.001, {}, distance, eager_distance));
  CHECK_FALSE(gpu::near_as_eager_to_reference(output("f32", eager_values), output("f32", fused),
                                              output("f32", f32), 0.001, {}, distance,
                                              eager_distance));
}

TEST_CASE("root-mean-square difference follows the logical order and refuses other shapes",
          "[gpu]") {
  const gpu::HostOutput a = output("f32", {1.0, 2.0, 3.0, 4.0});
  const gpu::HostOutput b = output("f32", {1.0, 2.0, 3.0, 6.0});
  CHECK(gpu::rms_difference({&a.meta, a.bytes.data()}, {&b.meta, b.bytes.data()}, {}) ==
        Approx(1.0));
  const gpu::HostOutput shorter = output("f32", {1.0, 2.0, 3.0});
  CHECK(std::isinf(
      gpu::rms_difference({&a.meta, a.bytes.data()}, {&shorter.meta, shorter.bytes.data()}, {})));
}
