#include <catch2/catch.hpp>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("storage of a strided view spans its last element", "[gpu]") {
  auto meta = graph::parse_tensor_meta("f32[1024, 4096][1, 1024]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {}) == 1024 * 4096);
  meta = graph::parse_tensor_meta("f32[1, 12, 128, 128][16384, 0, 128, 1]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {}) == 128 * 128);
  meta = graph::parse_tensor_meta("f32[s0, 8][8, 1]cuda:0");
  REQUIRE(meta);
  CHECK(gpu::storage_elements(*meta, {{"s0", 3}}) == 24);
}

TEST_CASE("GPT-2's token ids stay within the embedding table", "[gpu]") {
  const auto f = test::sample_fusion("gpt2_12layer", fusion::Mode::eager);
  std::vector<std::int64_t> bounds;
  for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
    const auto& node = f.post_grad.node(n);
    if (node.op != graph::OpKind::placeholder || !node.meta || node.meta->dtype != "i64") continue;
    if (const auto b = gpu::index_bound(f.post_grad, n, {})) bounds.push_back(*b);
  }
  CHECK(bounds == std::vector<std::int64_t>{50257});
}

TEST_CASE("random inputs are reproducible and in their ranges", "[gpu]") {
  const auto w = graph::parse_tensor_meta("f32[1024, 4096][4096, 1]cuda:0");
  const auto v = graph::parse_tensor_meta("f32[64][1]cuda:0");
  const auto ids = graph::parse_tensor_meta("i64[1, 128][128, 1]cuda:0");
  REQUIRE((w && v && ids));
  const auto a = gpu::random_tensor(*w, {}, 7, std::nullopt);
  CHECK(a == gpu::random_tensor(*w, {}, 7, std::nullopt));
  CHECK(a != gpu::random_tensor(*w, {}, 8, std::nullopt));
  double max_abs = 0;
  for (std::int64_t i = 0; i < 1024 * 4096; ++i) {
    max_abs = std::max(max_abs, std::abs(gpu::read_element("f32", a.data(), i)));
  }
  CHECK(max_abs <= 0.02);  // 1/sqrt(fan-in 4096), clamped up to 0.02
  CHECK(max_abs > 0.019);
  const auto scales = gpu::random_tensor(*v, {}, 1, std::nullopt);
  for (std::int64_t i = 0; i < 64; ++i) {
    const double x = gpu::read_element("f32", scales.data(), i);
    CHECK((x >= 0.5 && x < 1.5));  // a batch norm's variance must stay positive
  }
  const auto tokens = gpu::random_tensor(*ids, {}, 3, 50257);
  for (std::int64_t i = 0; i < 128; ++i) {
    const double t = gpu::read_element("i64", tokens.data(), i);
    CHECK((t >= 0 && t < 50257));
  }
}

TEST_CASE("half and bfloat16 round-trip through the host conversions", "[gpu]") {
  std::byte buf[2];
  for (const double x : {0.0, 1.0, -2.5, 0.333251953125, 65504.0, 1.0e-4}) {
    gpu::write_element("f16", buf, 0, x);
    CHECK(gpu::read_element("f16", buf, 0) == Approx(x).epsilon(1e-3));
    gpu::write_element("bf16", buf, 0, x);
    CHECK(gpu::read_element("bf16", buf, 0) == Approx(x).epsilon(1e-2));
  }
}
