// Dropout's random numbers: the host Philox against Random123's known answers, the seeds the
// run derives, and residual_mlp_train's RNG ops generated in every mode with one generator text,
// so eager's kernel and the fused kernel draw the same number for the same (seed, index).

#include <catch2/catch.hpp>

#include <set>

#include "codegen_samples.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/codegen/rng.h"
#include "fxscope/ops/op_registry.h"

using namespace fxscope;

namespace {

// The generated kernel of the group that computes the node whose name starts with NODE.
std::string source_computing(const test::PlannedGraph& p, const std::string& node) {
  for (const auto& group : p.fusion.ours.groups) {
    for (const graph::NodeId n : group.nodes) {
      if (p.fusion.post_grad.node(n).name.rfind(node, 0) != 0) continue;
      codegen::CodegenOptions options;
      options.hints = p.hints;
      const auto k = codegen::generate(p.fusion.post_grad, group, options);
      REQUIRE(k);
      return k->source;
    }
  }
  FAIL("no group computes " << node);
  return {};
}

// The text from the Philox lambda to the end of its call.
std::string generator_text(const std::string& source) {
  const auto start = source.find("[](unsigned long long fx_seed, unsigned long long fx_ctr)");
  REQUIRE(start != std::string::npos);
  const auto call = source.find("}((unsigned long long)(", start);
  REQUIRE(call != std::string::npos);
  return source.substr(start, call - start);
}

}  // namespace

TEST_CASE("Philox4x32-10 gives Random123's known answers", "[codegen][rng]") {
  using W = std::array<std::uint32_t, 4>;
  CHECK(codegen::philox4x32_10({0, 0, 0, 0}, {0, 0}) ==
        W{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  CHECK(codegen::philox4x32_10({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                               {0xffffffffu, 0xffffffffu}) ==
        W{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  CHECK(codegen::philox4x32_10({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                               {0xa4093822u, 0x299f31d0u}) ==
        W{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
}

TEST_CASE("uniform and normal draws depend on the seed and the index only", "[codegen][rng]") {
  // The top 24 bits of the first word of the all-zero counter and key, times 2^-24.
  CHECK(codegen::rng_uniform(0, 0) == static_cast<float>(0x6627e8d5u >> 8) / 16777216.0f);
  CHECK(codegen::rng_uniform(7, 3) == codegen::rng_uniform(7, 3));
  CHECK(codegen::rng_uniform(7, 3) != codegen::rng_uniform(7, 4));
  CHECK(codegen::rng_uniform(7, 3) != codegen::rng_uniform(8, 3));
  double sum = 0;
  double sq = 0;
  std::size_t kept = 0;  // dropout p = 0.1 keeps about 90%
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const float u = codegen::rng_uniform(12345, static_cast<std::uint64_t>(i));
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
    if (u > 0.1f) ++kept;
    const double z = codegen::rng_normal(12345, static_cast<std::uint64_t>(i));
    sum += z;
    sq += z * z;
  }
  CHECK(static_cast<double>(kept) / kDraws == Approx(0.9).margin(0.005));
  CHECK(sum / kDraws == Approx(0.0).margin(0.02));
  CHECK(sq / kDraws == Approx(1.0).margin(0.02));
}

TEST_CASE("seeds come from the run's seed and differ per seeds op and slot", "[codegen][rng]") {
  const auto a = codegen::rng_seed_values(0, 0, 3);
  REQUIRE(a.size() == 3);
  CHECK(a == codegen::rng_seed_values(0, 0, 3));
  CHECK(a != codegen::rng_seed_values(1, 0, 3));
  CHECK(a != codegen::rng_seed_values(0, 1, 3));
  CHECK(std::set<std::int64_t>(a.begin(), a.end()).size() == 3);
  for (const std::int64_t s : a) CHECK(s >= 0);
}

TEST_CASE("residual_mlp_train: every group generates in every mode", "[codegen][rng]") {
  for (const fusion::Mode mode : fusion::kAllModes) {
    std::size_t groups = 0;
    std::size_t seeds = 0;
    for (const auto& p : test::planned_graphs("residual_mlp_train", mode)) {
      for (const auto& group : p.fusion.ours.groups) {
        const graph::Graph& g = p.fusion.post_grad;
        INFO(p.where << " " << fusion::to_string(mode) << " " << group.name);
        if (group.nodes.size() == 1 && codegen::is_rng_seeds_op(g.node(group.nodes[0]).target)) {
          const auto k = codegen::seeds_kernel(g, group, 42);
          REQUIRE(k);
          // The one seed of the sample's dropout, baked in.
          CHECK(k->source.find(std::to_string(codegen::rng_seed_values(42, 0, 1)[0]) + "LL;") !=
                std::string::npos);
          ++seeds;
          continue;
        }
        if (!codegen::has_generated_kernel(g, group)) continue;
        codegen::CodegenOptions options;
        options.hints = p.hints;
        const auto k = codegen::generate(g, group, options);
        INFO((k ? std::string() : k.error().message));
        CHECK(k);
        ++groups;
      }
    }
    CHECK(groups >= 2);
    CHECK(seeds == 1);  // the forward graph draws seeds; the backward reads the saved mask
  }
}

TEST_CASE("eager's random kernel and the fused dropout kernel evaluate one generator",
          "[codegen][rng]") {
  const auto eager = test::planned_graphs("residual_mlp_train", fusion::Mode::eager);
  const auto fused = test::planned_graphs("residual_mlp_train", fusion::Mode::default_mode);
  REQUIRE(!eager.empty());
  REQUIRE(!fused.empty());
  const std::string alone = source_computing(eager.front(), "inductor_random");
  const std::string inlined = source_computing(fused.front(), "inductor_random");
  CHECK(generator_text(alone) == generator_text(inlined));
  // Eager reads the looked-up seed from its buffer; the fused kernel looks it up itself, from
  // slot 0 of the seeds buffer. Both count the element's linear index over [32, 4096].
  CHECK(alone.find("p_inductor_lookup_seed_default") != std::string::npos);
  CHECK(inlined.find("p_inductor_seeds_default[0]") != std::string::npos);
}

TEST_CASE("eager compares dropout's draw unrounded, as ATen's dropout kernel and Inductor do",
          "[codegen]") {
  // The AOT graph's rand_like casts the f32 draw to f16 before `> p`; ATen's fused dropout
  // kernel compares the f32 draw. Eager's comparison reads the draw through the cast.
  int comparisons = 0;
  for (const auto& p : test::planned_graphs("corpus/hf_bert_mlm_train_fp16", fusion::Mode::eager)) {
    const graph::Graph& g = p.fusion.post_grad;
    for (const auto& group : p.fusion.ours.groups) {
      const graph::NodeId op = group.nodes.back();
      if (ops::op_base_name(g.node(op).target) != "gt" || group.nodes.size() != 2) continue;
      CHECK(ops::op_base_name(g.node(group.nodes.front()).target) == "convert_element_type");
      codegen::CodegenOptions options;
      options.hints = p.hints;
      const auto k = codegen::generate(g, group, options);
      REQUIRE(k);
      const std::string body = k->source.substr(k->source.find("extern \"C\""));
      CHECK(body.find("fx_f2h(") == std::string::npos);  // no rounding to f16 on the way
      CHECK(k->params.front().dtype == "f32");           // it reads the draw itself
      ++comparisons;
    }
  }
  CHECK(comparisons >= 4);  // the encoder's f16 dropouts (the embeddings' is f32: no cast)
}
