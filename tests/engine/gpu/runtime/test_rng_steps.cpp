// residual_mlp_train (dropout) in the runtime: its forward graph is fully covered in every mode,
// the seeds op is a generated kernel holding seeds derived from the run's seed, every kernel
// compiles with NVRTC, and on a GPU the fused modes match eager exactly.

#include <unistd.h>
#include <catch2/catch.hpp>

#include "samples.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "fxscope/codegen/rng.h"
#include "fxscope/gpu/engine_run.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/ops/op_registry.h"
#include "sample_graph.h"

using namespace fxscope;

TEST_CASE("residual_mlp_train's forward runs every op in every mode", "[gpu][rng]") {
  for (const auto mode : fusion::kAllModes) {
    const auto f = test::sample_fusion("residual_mlp_train", mode);
    const auto s = gpu::plan_steps(f.post_grad, f.ours, {}, mode == fusion::Mode::max_autotune, 7);
    INFO(fusion::to_string(mode) << ": " << (s.skipped.empty() ? "" : s.skipped.front().why));
    CHECK(s.skipped.empty());
    CHECK(s.ran_ops == s.ops);
    CHECK(s.read_before_write.empty());
    std::size_t seeds = 0;
    for (const auto& step : s.steps) {
      if (step.kind != gpu::StepKind::generated || step.variants.front().summary.rfind("rng", 0))
        continue;
      ++seeds;
      CHECK(step.writes.size() == 1);
      CHECK(step.variants.size() == 1);  // nothing to tune in a one-thread kernel
      CHECK(step.variants.front().source.find(
                std::to_string(codegen::rng_seed_values(7, 0, 1)[0])) != std::string::npos);
    }
    CHECK(seeds == 1);
  }
}

TEST_CASE("eager's dropout draws from the seed Inductor's lookup gives it", "[gpu][rng]") {
  // A real dropout (F.dropout in training): eager's graph holds aten.rand, the post-grad graph
  // inductor_lookup_seed(seeds, 0) + inductor_random. Both must draw from seed 0 of the run's
  // seeds, or eager's mask differs from every compiled mode's and their outputs never compare.
  const std::uint64_t run_seed = 7;
  const std::string seed = std::to_string(codegen::rng_seed_values(run_seed, 0, 1)[0]);
  const auto eager = test::sample_fusion("corpus/hand_recompiles_module", fusion::Mode::eager);
  const auto e = gpu::plan_steps(eager.post_grad, eager.ours, {}, false, run_seed);
  std::size_t rand_kernels = 0;
  for (const auto& step : e.steps) {
    const bool draws = std::any_of(step.nodes.begin(), step.nodes.end(), [&](graph::NodeId n) {
      return ops::op_base_name(eager.post_grad.node(n).target) == "rand";
    });
    if (!draws) continue;
    ++rand_kernels;
    INFO(step.variants.front().source);
    CHECK(step.variants.front().source.find(seed + "LL") != std::string::npos);
  }
  CHECK(rand_kernels == 1);
  const auto fused =
      test::sample_fusion("corpus/hand_recompiles_module", fusion::Mode::default_mode);
  const auto d = gpu::plan_steps(fused.post_grad, fused.ours, {}, false, run_seed);
  const bool seeded = std::any_of(d.steps.begin(), d.steps.end(), [&](const gpu::StepPlan& s) {
    return s.variants.size() == 1 &&
           s.variants.front().source.find(seed + "LL") != std::string::npos &&
           s.variants.front().summary.rfind("rng seeds", 0) == 0;
  });
  CHECK(seeded);
}

TEST_CASE("residual_mlp_train's kernels compile for sm_90", "[nvrtc][rng]") {
  const auto cache =
      std::filesystem::temp_directory_path() / ("fxscope_nvrtc_rng_" + std::to_string(::getpid()));
  gpu::NvrtcOptions options;
  options.cache_dir = cache.string();
  std::size_t compiled = 0;
  for (const auto mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
    const auto f = test::sample_fusion("residual_mlp_train", mode);
    const auto s = gpu::plan_steps(f.post_grad, f.ours, {}, false, 0);
    for (const auto& step : s.steps) {
      if (step.kind != gpu::StepKind::generated) continue;
      const auto& k = step.variants.front();
      const auto cubin = gpu::compile_cuda(k.source, k.entry, options);
      INFO(k.source);
      CHECK(cubin);
      ++compiled;
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(cache, ec);
  CHECK(compiled >= 12);  // eager's one kernel per op, default's seeds and two fused kernels
}

TEST_CASE("dropout draws the same numbers in every mode of a run", "[cuda][engine][rng]") {
  const char* dir = std::getenv("FXSCOPE_SAMPLE_DIR");
  gpu::EngineRunOptions o;
  o.log_path =
      std::string(dir && *dir ? dir : fxscope::test::samples_dir()) + "/residual_mlp_train";
  o.mode = "all";
  o.repeats = 2;
  o.warmup = 1;
  o.seed = 3;
  const auto run = gpu::run_engine(o);
  if (!run && run.error().message.find("no CUDA device") != std::string::npos) {
    WARN("skipped, no device: " + run.error().message);
    return;
  }
  REQUIRE(run);
  REQUIRE(run->modes.size() == 4);
  for (const auto& m : run->modes) {
    INFO(m.measured.mode << ": " << m.error);
    CHECK(m.ran);
    CHECK(m.coverage.missing.empty());
    CHECK(m.coverage.ran == m.coverage.ops);
    if (m.measured.mode == "eager") continue;
    // Outputs (add_1, primals_1, primals_3, primals_4, gt, mul_1, addmm_1): dropout's mask is
    // eager's bit for bit; the rest within f32 tolerance (GEMM algorithms and FMAs may round
    // differently between modes).
    REQUIRE(m.max_rel_err.has_value());
    CHECK(!m.flagged);
    REQUIRE(m.rel_errs.size() == 7);
    CHECK(m.rel_errs[4] == 0.0);
  }
}
