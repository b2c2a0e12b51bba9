// Whether a reduction kernel keeps each row in one block (Triton's persistent reduction,
// triton_per) or loops over it (triton_red) follows
// InductorChoices.should_use_persistent_reduction: up to 1,024 elements where every reduction of
// the kernel is inner, up to 64 otherwise. And a Welford reduction (a batch norm's statistics)
// split in parts combines them with WelfordReduction.create, which splits the combine again: three
// kernels, as Inductor launches.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"

using namespace fxscope;

namespace {

struct Pass {
  std::int64_t numel;
  std::int64_t rnumel;
  fusion::GroupKind kind;
};

// The kernels of unit 0/0's forward graph whose nodes are NODE's alone, in plan order.
std::vector<Pass> passes_of(const fusion::FusionPlan& plan, const graph::Graph& g,
                            const std::string& node) {
  std::vector<Pass> out;
  for (const fusion::KernelGroup& k : plan.groups) {
    const bool only = std::any_of(k.nodes.begin(), k.nodes.end(),
                                  [&](graph::NodeId n) { return g.node(n).name == node; });
    if (only && k.note.starts_with("split reduction")) out.push_back({k.numel, k.rnumel, k.kind});
  }
  return out;
}

}  // namespace

TEST_CASE("a batch norm's split statistics combine their parts in two kernels as Inductor does",
          "[fusion]") {
  const auto log = test::corpus_log("tv_resnet18_train_bf16");
  if (!log) return;
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE_FALSE(fused.empty());
  // The stem's batch norm, 64 channels of 2 x 112 x 112: Inductor's triton_red (50176 x 128),
  // triton_red (448 x 112) and triton_per (64 x 7), the last two the combine split in 7.
  const std::vector<Pass> stem = passes_of(fused.front().ours, fused.front().post_grad, "var_mean");
  REQUIRE(stem.size() == 3);
  CHECK(stem[0].numel == 50176);
  CHECK(stem[0].rnumel == 128);
  CHECK(stem[0].kind == fusion::GroupKind::reduction);
  CHECK(stem[1].numel == 448);
  CHECK(stem[1].rnumel == 112);
  CHECK(stem[1].kind == fusion::GroupKind::reduction);
  CHECK(stem[2].numel == 64);
  CHECK(stem[2].rnumel == 7);
  CHECK(stem[2].kind == fusion::GroupKind::persistent_reduction);
  // The last stage's, 512 channels of 2 x 7 x 7: 4 parts, too few to split again.
  const std::vector<Pass> last =
      passes_of(fused.front().ours, fused.front().post_grad, "var_mean_19");
  REQUIRE(last.size() == 2);
  CHECK(last[1].rnumel == 4);
}

TEST_CASE("a reduction kernel keeps a row in one block as Inductor's does", "[fusion]") {
  // Each of Inductor's reduction kernels that fxscope forms exactly is of the same kind. MaxViT's
  // batch norms, layer norms and attention softmaxes mix inner reductions, outer ones and split
  // ones; MobileNetV3 with dynamic shapes loops over every reduction whose size is symbolic, which
  // no bound fits.
  for (const char* name : {"tv_maxvit_small", "tv_mobilenet_v3_large_dynamic_bf16"}) {
    const auto log = test::corpus_log(name);
    if (!log) continue;
    int compared = 0;
    int looped = 0;
    for (const auto& unit : log->units()) {
      for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
        for (const fusion::KernelGroup& theirs : f.inductor.groups) {
          if (theirs.kind != fusion::GroupKind::reduction &&
              theirs.kind != fusion::GroupKind::persistent_reduction) {
            continue;
          }
          const bool same = std::any_of(
              f.ours.groups.begin(), f.ours.groups.end(),
              [&](const auto& o) { return o.nodes == theirs.nodes && o.kind == theirs.kind; });
          INFO(name << ": " << theirs.name);
          CHECK(same);
          ++compared;
          looped += theirs.kind == fusion::GroupKind::reduction;
        }
      }
    }
    INFO(name);
    CHECK(compared >= 9);
    CHECK(looped >= 5);
  }
}

TEST_CASE("a reduction no load of which spans every loop variable is not split", "[fusion]") {
  // ViT-B/16's class-token gradient (a select_backward: zeros but for token 0) summed over the
  // batch and tokens for the final norm's bias: its loads skip the token variable, so
  // Reduction.num_splits takes no vote and does not split it; one looped kernel of 768 rows of
  // 394, as Inductor's kernel 1. Its weight's sum, which also loads the normalized input at full
  // size, votes outer and splits (kernel 3).
  const auto log = test::corpus_log("tv_vit_b_16_train_bf16");
  if (!log) return;
  int found = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.name !=
            "triton_red_fused__to_copy_native_layer_norm_backward_select_backward_1") {
          continue;
        }
        ++found;
        std::vector<const fusion::KernelGroup*> ours;
        for (const fusion::KernelGroup& o : f.ours.groups) {
          if (o.nodes == theirs.nodes) ours.push_back(&o);
        }
        INFO(theirs.name);
        REQUIRE(ours.size() == 1);
        CHECK(ours.front()->kind == fusion::GroupKind::reduction);
        CHECK(ours.front()->numel == 768);
        CHECK(ours.front()->rnumel == 394);
      }
    }
  }
  CHECK(found >= 1);
}
