// A layer norm's normalised value counts, in Inductor's inner function (OpCounterCSE), the
// variance as var_mean_welford_ makes it, a Pointwise of m2 (its own buffer: m2 divided by
// maximum(0, N - correction)), and a cat of inputs of other dtypes the casts lowering.cat adds.
// CLIP's pre-layer-norm (over the class token's cat with the bf16 patch embeddings and the
// position embedding) so passes 30 ops at its weight's mul: Inductor stores that value and each
// later layer norm recomputes the bias add and the residual adds from it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("layer norms recompute the pre-layer-norm bias add as Inductor's (CLIP)", "[fusion]") {
  const auto log = test::corpus_log("hf_clip_bf16");
  if (!log) return;
  int kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (!g.name.starts_with("triton_per_fused__to_copy_add_native_layer_norm_view")) continue;
        ++kernels;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(kernels >= 3);
}

// lowering.transform_args casts an input of another dtype than the promoted one before the op:
// Whisper's fp16 convolution output plus the f32 position embedding is a cast and an add. Its
// first layer norm's weight mul so passes 30 ops and is stored; the bias add is recomputed by the
// pads of the GEMMs reading it (pad_mm), whose kernels carry it, as Inductor's.
TEST_CASE("an input of another dtype is cast before a pointwise op (Whisper)", "[fusion]") {
  const auto log = test::corpus_log("hf_whisper_fp16");
  if (!log) return;
  int kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (!g.name.starts_with("triton_poi_fused__to_copy_") ||
            g.name.find("native_layer_norm_view") == std::string::npos) {
          continue;
        }
        ++kernels;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(kernels >= 2);
}
