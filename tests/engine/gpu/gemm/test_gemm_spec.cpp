#include <catch2/catch.hpp>

#include "fxscope/gpu/gemm_spec.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("residual MLP's addmm reads the transposed weight as a column-major view", "[gpu]") {
  const auto f = test::sample_fusion("residual_mlp", fusion::Mode::default_mode);
  const auto id = f.post_grad.find("addmm");
  REQUIRE(id);
  const auto spec = gpu::describe_gemm(f.post_grad, *id, {});
  REQUIRE(spec);
  CHECK(spec->op == "aten.addmm");
  CHECK(spec->a.rows == 32);
  CHECK(spec->a.cols == 1024);
  CHECK(spec->a.row_major());
  CHECK(spec->b.rows == 1024);
  CHECK(spec->b.cols == 4096);
  CHECK_FALSE(spec->b.row_major());  // permute of a [4096, 1024] weight
  CHECK(spec->b.col_stride == 1024);
  REQUIRE(spec->bias_vector);
  CHECK(f.post_grad.node(*spec->bias_vector).name == "arg1_1");
  CHECK(f.post_grad.node(spec->b.node).name == "permute");
}

TEST_CASE("GPT-2's GEMMs are all described, and a non-GEMM is refused by name", "[gpu]") {
  const auto f = test::sample_fusion("gpt2_2layer", fusion::Mode::default_mode);
  std::size_t gemms = 0;
  for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
    if (!gpu::is_gemm_target(f.post_grad.node(n).target)) continue;
    const auto spec = gpu::describe_gemm(f.post_grad, n, {});
    INFO(f.post_grad.node(n).name << ": " << (spec ? "" : spec.error().message));
    CHECK(spec);
    ++gemms;
  }
  CHECK(gemms >= 8);
  const auto embedding = f.post_grad.find("embedding");
  REQUIRE(embedding);
  const auto refused = gpu::describe_gemm(f.post_grad, *embedding, {});
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::StartsWith("node embedding"));
}
