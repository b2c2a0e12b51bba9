#include <catch2/catch.hpp>

#include "fxscope/gpu/attention_kernel.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("GPT-2's attention takes its mask as a bias and writes the getitem", "[gpu]") {
  const auto f = test::sample_fusion("gpt2_2layer", fusion::Mode::default_mode);
  std::optional<graph::NodeId> sdpa;
  for (graph::NodeId n = 0; n < f.post_grad.size() && !sdpa; ++n) {
    if (gpu::is_attention_target(f.post_grad.node(n).target)) sdpa = n;
  }
  REQUIRE(sdpa);
  const auto spec = gpu::describe_attention(f.post_grad, *sdpa, {});
  REQUIRE(spec);
  CHECK(spec->scale == 0.125);
  CHECK_FALSE(spec->causal);
  CHECK(spec->q.sizes == std::array<std::int64_t, 4>{1, 12, 128, 64});
  CHECK(spec->out.strides == std::array<std::int64_t, 4>{0, 64, 768, 1});  // batch 1: stride 0
  REQUIRE(spec->bias);
  CHECK(spec->bias->strides[1] == 0);  // the mask is broadcast over heads
  CHECK(f.post_grad.node(spec->out.node).target == "operator.getitem");
  const std::string src = gpu::attention_source(*spec);
  CHECK_THAT(src, Catch::Contains("extern \"C\" __global__ void fxscope_attention("));
  CHECK_THAT(src, Catch::Contains("acc += bias["));
  CHECK(gpu::attention_shared_bytes(*spec) == (64 + 128 + 2 * 128) * sizeof(float));
  CHECK(gpu::attention_blocks(*spec) == 12 * 128);
  auto tiled = *spec;
  REQUIRE(gpu::attention_tiles_fit(tiled));
  tiled.tiled = true;
  CHECK(gpu::attention_blocks(tiled) == 12 * 8);  // 16 query rows a block
  CHECK(gpu::attention_threads(tiled) == 256);
  CHECK(gpu::attention_shared_bytes(tiled) == (128 * 129 + 8 * (128 + 64)) * sizeof(float));
  const std::string tsrc = gpu::attention_source(tiled);
  CHECK_THAT(tsrc, Catch::Contains("ks[j * 65 + d]"));  // padded rows: no bank conflicts
  CHECK_THAT(tsrc, Catch::Contains("acc += bias["));
}

TEST_CASE("bf16 attention and its backward are read and written in bf16 and compile",
          "[gpu][nvrtc]") {
  // A real bf16 training step (Llama): cuDNN's SDPA forward and backward in the post-grad graphs.
  auto log = trace::read_trace(test::sample("corpus/hf_llama_train_bf16"));
  REQUIRE(log);
  const auto graphs = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(graphs.size() == 2);  // forward and backward
  std::size_t forwards = 0;
  std::size_t backwards = 0;
  const auto compiles = [](const std::string& src) {
    const auto cubin = gpu::compile_cuda(src, "fxscope_attention", {});
    if (!cubin && cubin.error().message.find("NVRTC") != std::string::npos &&
        cubin.error().message.find("load") != std::string::npos) {
      WARN("NVRTC not usable here: " << cubin.error().message);
      return;
    }
    INFO(src);
    CHECK(cubin);
  };
  for (const auto& f : graphs) {
    for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
      const std::string& target = f.post_grad.node(n).target;
      if (!gpu::is_attention_target(target)) continue;
      const auto spec = gpu::describe_attention(f.post_grad, n, {});
      INFO(f.post_grad.node(n).name << ": " << (spec ? "" : spec.error().message));
      REQUIRE(spec);
      REQUIRE(spec->bias);  // cuDNN's attn_bias (args[3]): Llama's causal mask
      if (gpu::is_attention_backward_target(target)) {
        ++backwards;
        CHECK(spec->backward);
        REQUIRE(spec->lse);
        CHECK(spec->dq.dtype == "bf16");
        CHECK(gpu::attention_blocks(*spec) ==
              spec->q.sizes[0] * spec->q.sizes[1] * (spec->q.sizes[2] + spec->k.sizes[2]));
        const std::string src = gpu::attention_source(*spec);
        CHECK_THAT(src, Catch::Contains("fx_bf16* __restrict__ dk"));
        compiles(src);
        continue;
      }
      ++forwards;
      CHECK(spec->q.dtype == "bf16");
      CHECK(spec->out.dtype == "bf16");
      // What the backward reads: the rows' log-sum-exp and the philox seed and offset.
      REQUIRE(spec->lse);
      CHECK(spec->zeroed.size() == 2);
      for (const bool tiled : {false, true}) {
        auto s = *spec;
        s.tiled = tiled && gpu::attention_tiles_fit(s);
        const std::string src = gpu::attention_source(s);
        CHECK_THAT(src, Catch::Contains("const fx_bf16* __restrict__ q"));
        CHECK_THAT(src, Catch::Contains("= fx_f2b(acc * inv);"));
        CHECK_THAT(src, Catch::Contains("if (lse) lse["));
        compiles(src);
      }
    }
  }
  CHECK(forwards > 0);
  CHECK(backwards == forwards);
}

TEST_CASE("T5's unscaled attention (scale 1) compiles forward and backward", "[gpu][nvrtc]") {
  auto log = trace::read_trace(test::sample("corpus/hf_t5_train_bf16"));
  REQUIRE(log);
  std::size_t unscaled = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
        if (!gpu::is_attention_target(f.post_grad.node(n).target)) continue;
        const auto spec = gpu::describe_attention(f.post_grad, n, {});
        if (!spec || spec->scale != 1.0) continue;
        ++unscaled;
        const std::string src = gpu::attention_source(*spec);
        INFO(f.post_grad.node(n).name);
        CHECK_THAT(src, Catch::Contains("acc *= 1.0f;"));
        const auto cubin = gpu::compile_cuda(src, "fxscope_attention", {});
        if (!cubin && cubin.error().message.find("load") != std::string::npos) {
          WARN("NVRTC not usable here: " << cubin.error().message);
          return;
        }
        CHECK(cubin);
      }
    }
  }
  CHECK(unscaled > 0);
}
