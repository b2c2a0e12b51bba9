#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/output_compare.h"

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
