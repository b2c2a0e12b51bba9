// Reduction.num_splits tells inner from outer reductions by the loads of the reduction's own
// loop, its inlined producers included: a layer norm over a transposed value not in memory
// (wav2vec2's feature projection: gelu, transpose, layer norm) reads its source along the reduced
// dim with a stride, so it is an outer reduction over few rows and splits into two kernels, its
// normalisation a third.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/reduction_split.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a layer norm over a transpose not in memory votes outer and splits", "[fusion]") {
  const auto log = test::corpus_log("hf_wav2vec2");
  if (!log) return;
  int split_norms = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        const bool first_pass = g.name.starts_with("triton_red_fused_gelu_native_layer_norm");
        if (!first_pass) continue;
        ++split_norms;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(split_norms >= 1);
}

// Reduction.create_multilayer reads each part of a split reduction through one flattened
// variable (_multilayer_wrap_loader), and Reduction.create votes on the first pass again: a group
// norm's statistics over a channels-last value (channels innermost, then positions) are inner as
// a whole, so they split by the inner rule, and outer part by part, so the first pass splits
// again by the outer rule.
TEST_CASE("a channels-last group norm votes inner as a whole and outer part by part", "[fusion]") {
  // 4 x 8 groups, each 8 channels x 4096 positions, channels-last: a position steps 64.
  fusion::MemoryDep d;
  d.terms = {{262144, 4, 262144}, {32768, 8, 8}, {4096, 8, 1}, {1, 4096, 64}};
  const std::int64_t rnumel = 8 * 4096;
  CHECK(fusion::inner_by_reads({d}, rnumel) == std::optional<bool>(true));
  CHECK(fusion::inner_by_flat_reads({d}, rnumel) == std::optional<bool>(false));
  // Contiguous, the same reduction is inner either way.
  fusion::MemoryDep c;
  c.terms = {{1, 4 * 8 * rnumel, 1}};
  CHECK(fusion::inner_by_flat_reads({c}, rnumel) == std::optional<bool>(true));
  // Inductor's figures for the H100 and H200 (132 SMs): 32 rows of 32,768 split in 4 (inner),
  // and the first pass, 128 rows of 8,192, in 64 (outer): 8,192 rows of 128.
  const fusion::PlanOptions options;
  CHECK(fusion::reduction_split(rnumel, 32, true, options) == 4);
  CHECK(fusion::reduction_split(rnumel / 4, 128, false, options) == 64);
  CHECK(fusion::reduction_split(rnumel / 4, 128, true, options) == 1);
}

TEST_CASE("a group norm's split first pass splits again into Inductor's three kernels",
          "[fusion]") {
  const auto log = test::corpus_log("hand_unet_train_cl_bf16");
  if (!log) return;
  int chains = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.ours.groups) {
        if (g.note != fusion::kSplitMiddlePassNote) continue;
        ++chains;
        // The first pass's rows of 128 elements: Inductor's persistent first kernel.
        const auto first =
            std::find_if(f.ours.groups.begin(), f.ours.groups.end(), [&](const auto& p) {
              return p.note == fusion::kSplitFirstPassNote && p.numel == g.numel * g.rnumel;
            });
        REQUIRE(first != f.ours.groups.end());
        INFO(first->name);
        CHECK(first->rnumel == 128);
        CHECK(std::any_of(f.inductor.groups.begin(), f.inductor.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == first->nodes; }));
      }
    }
  }
  CHECK(chains >= 3);
}

// Reduction.num_splits votes with the addresses extract_read_writes records, where an indirect
// load's address holds the index's temporary in place of the loop variables (no
// IndexPropagation there, so an embedding of an iota is no exception): it spans too few of them
// and casts no vote. Whisper's first layer norm (a convolution's output, transposed, plus the
// position embedding) is then voted outer by the convolution's load alone and splits in two.
TEST_CASE("an indirect load casts no vote on inner or outer", "[fusion]") {
  // 1,500 rows of 256, read transposed (a row's elements 1,500 apart) and through an index.
  fusion::MemoryDep transposed;
  transposed.terms = {{256, 1500, 1}, {1, 256, 1500}};
  fusion::MemoryDep indirect;
  indirect.opaque = true;
  indirect.tag = 7;
  CHECK(fusion::inner_by_reads({transposed, indirect}, 256) == std::optional<bool>(false));
  CHECK(fusion::inner_by_reads({indirect}, 256) == std::nullopt);
  // An opaque address that is no indirect load still leaves the choice to the layout.
  fusion::MemoryDep window;
  window.opaque = true;
  CHECK(fusion::inner_by_reads({transposed, window}, 256) == std::nullopt);
  // Outer over 1,500 rows of 256: two parts, as Inductor's kernels of 128.
  CHECK(fusion::reduction_split(256, 1500, false, fusion::PlanOptions{}) == 2);
}

TEST_CASE("a layer norm reading an embedding splits as its other loads vote", "[fusion]") {
  const auto log = test::corpus_log("hf_whisper_fp16");
  if (!log) return;
  int first_passes = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (!g.name.starts_with("triton_red_fused__to_copy_add_arange_convolution_embedding")) {
          continue;
        }
        ++first_passes;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(first_passes >= 2);
}
