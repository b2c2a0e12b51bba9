#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/gpu/random_inputs.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

std::vector<std::byte> floats(const std::vector<float>& v) {
  std::vector<std::byte> out(v.size() * 4);
  for (std::size_t i = 0; i < v.size(); ++i) {
    gpu::write_element("f32", out.data(), static_cast<std::int64_t>(i), v[i]);
  }
  return out;
}

}  // namespace

TEST_CASE("outputs compare element by element whatever their strides", "[gpu]") {
  const auto row = graph::parse_tensor_meta("f32[2, 3][3, 1]cuda:0");
  const auto col = graph::parse_tensor_meta("f32[2, 3][1, 2]cuda:0");
  REQUIRE((row && col));
  const auto a = floats({1, 2, 3, 4, 5, 6});
  const auto b = floats({1, 4, 2, 5, 3, 6});  // the same matrix stored column-major
  CHECK(gpu::relative_error({&*row, a.data()}, {&*col, b.data()}, {}) == 0.0);
  const auto c = floats({1, 4, 2, 5, 3, 6.06f});
  CHECK(gpu::relative_error({&*row, a.data()}, {&*col, c.data()}, {}) ==
        Approx(0.01).epsilon(1e-3));
}

TEST_CASE("a NaN on one side only or a shape mismatch is an infinite error", "[gpu]") {
  const auto m = graph::parse_tensor_meta("f32[3][1]cuda:0");
  const auto other = graph::parse_tensor_meta("f32[4][1]cuda:0");
  REQUIRE((m && other));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto a = floats({1, nan, 3});
  const auto b = floats({1, 2, 3, 4});
  CHECK(gpu::relative_error({&*m, a.data()}, {&*m, a.data()}, {}) == 0.0);
  CHECK(std::isinf(gpu::relative_error({&*m, b.data()}, {&*m, a.data()}, {})));
  CHECK(std::isinf(gpu::relative_error({&*m, b.data()}, {&*other, b.data()}, {})));
  CHECK(gpu::tolerance("f32") < gpu::tolerance("bf16"));
  CHECK(gpu::tolerance("i64") == 0.0);
}

TEST_CASE("an autocast bf16 graph's f32 outputs are held to bf16's tolerance", "[gpu]") {
  // hand_attention_ro_bf16: the attention block under bf16 autocast returns f32 values computed
  // through bf16 matmuls; held to f32's 1e-3 they were flagged at 4.3e-3 against eager.
  const auto f = test::sample_fusion("corpus/hand_attention_ro_bf16", fusion::Mode::default_mode);
  const auto dtypes = gpu::computed_in_dtypes(f.post_grad);
  std::size_t f32_through_bf16 = 0;
  for (const graph::NodeId n : gpu::output_nodes(f.post_grad)) {
    const auto& meta = f.post_grad.node(n).meta;
    if (!meta || meta->dtype != "f32" || dtypes[n] != "bf16") continue;
    ++f32_through_bf16;
    gpu::HostOutput out;
    out.meta = *meta;
    out.computed_in = dtypes[n];
    CHECK(gpu::output_tolerance(out) == gpu::tolerance("bf16"));
  }
  CHECK(f32_through_bf16 > 0);
  // An integer computed from integers stays exact; one computed from floats (an argmax, a mask)
  // may flip at a few elements; a value computed in f32 only keeps f32's tolerance.
  gpu::HostOutput index;
  index.meta.dtype = "i64";
  CHECK(gpu::output_tolerance(index) == 0.0);
  index.computed_in = "bf16";
  CHECK(gpu::output_tolerance(index) == gpu::kMaskFlipShare);
  gpu::HostOutput plain;
  plain.meta.dtype = "f32";
  plain.computed_in = "f32";
  CHECK(gpu::output_tolerance(plain) == gpu::tolerance("f32"));
}

TEST_CASE("a mask's error is the share of its elements that differ", "[gpu]") {
  const auto m = graph::parse_tensor_meta("b8[4][1]cuda:0");
  REQUIRE(m);
  std::vector<std::byte> a(4);
  std::vector<std::byte> b(4);
  for (std::int64_t i = 0; i < 4; ++i) {
    gpu::write_element("b8", a.data(), i, i % 2 ? 1.0 : 0.0);
    gpu::write_element("b8", b.data(), i, i == 0 || i % 2 ? 1.0 : 0.0);
  }
  CHECK(gpu::relative_error({&*m, a.data()}, {&*m, b.data()}, {}) == 0.25);
  CHECK(gpu::relative_error({&*m, a.data()}, {&*m, a.data()}, {}) == 0.0);
}

TEST_CASE("a saved tensor is moved into the layout the backward reads it in", "[gpu][output]") {
  // The forward saved a contiguous 2 x 3 x 2 x 2 value (eager's layout); the backward reads it
  // channels-last (Inductor's layout optimisation of a training step).
  gpu::HostOutput out;
  out.meta = *graph::parse_tensor_meta("f32[2, 3, 2, 2][12, 4, 2, 1]cuda:0");
  out.bytes.resize(24 * sizeof(float));
  for (std::int64_t i = 0; i < 24; ++i) {
    gpu::write_element("f32", out.bytes.data(), i, static_cast<double>(i));
  }
  const auto cl = *graph::parse_tensor_meta("f32[2, 3, 2, 2][12, 1, 6, 3]cuda:0");
  const auto moved = gpu::relaid_as(out, cl, {});
  REQUIRE(moved);
  REQUIRE(moved->size() == out.bytes.size());
  for (std::int64_t n = 0; n < 2; ++n) {
    for (std::int64_t c = 0; c < 3; ++c) {
      for (std::int64_t h = 0; h < 2; ++h) {
        for (std::int64_t w = 0; w < 2; ++w) {
          INFO(n << c << h << w);
          CHECK(gpu::read_element("f32", moved->data(), n * 12 + c + h * 6 + w * 3) ==
                static_cast<double>(n * 12 + c * 4 + h * 2 + w));
        }
      }
    }
  }
  // Already in the backward's layout, or of other sizes: nothing to move.
  CHECK_FALSE(gpu::relaid_as(out, out.meta, {}));
  CHECK_FALSE(gpu::relaid_as(out, *graph::parse_tensor_meta("f32[2, 3, 4][12, 4, 1]cuda:0"), {}));
}
