// max-autotune: what sits beside a GEMM template. A 2-d pad feeding mm or addmm stores its input
// first (lowering.constant_pad_nd), in every mode, the pad's kernel keeping the input's origins
// (run_node gathers them before the lowering realizes the input). A template never takes an
// epilogue whose buffer aliases another (Scheduler.can_fuse, has_aliasing_or_mutation): a cat's
// piece copied into its slice of the ConcatKernel (NonOwningLayout) stays a kernel of its own.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

struct Formed {
  int inductor = 0;  // Inductor's kernels holding the op
  int exact = 0;     // of those, formed exactly by the plan
  std::size_t our_launches = 0;
  std::size_t inductor_launches = 0;
};

// Inductor's kernels of KIND holding OP, and how many of them the plan forms exactly.
Formed formed(const std::string& sample, fusion::GroupKind kind, std::string_view op) {
  Formed out;
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::max_autotune)) {
      out.our_launches += f.ours.launches();
      out.inductor_launches += f.inductor.launches();
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.kind != kind || !test::holds_op(f.post_grad, theirs, op)) continue;
        ++out.inductor;
        INFO(theirs.name);
        const bool found = test::formed_exactly(f.ours, theirs);
        CHECK(found);
        out.exact += found ? 1 : 0;
      }
    }
  }
  return out;
}

bool corpus_absent() {
  if (std::filesystem::exists(test::sample("corpus"))) return false;
  WARN("sample_graphs/corpus/ is absent from this checkout");
  return true;
}

}  // namespace

TEST_CASE("a cat's piece copied into its slice is no template's epilogue (MoE top-k, bf16)",
          "[fusion]") {
  if (corpus_absent()) return;
  // The second expert bmm's result is viewed and cat with a zero row: the copy into the cat's
  // slice is its own kernel, and the bmm template holds no cat.
  const Formed cats =
      formed("corpus/hand_moe_topk_max_autotune_bf16", fusion::GroupKind::pointwise, "cat");
  CHECK(cats.inductor >= 1);
  CHECK(cats.exact == cats.inductor);
  const Formed bmms =
      formed("corpus/hand_moe_topk_max_autotune_bf16", fusion::GroupKind::template_gemm, "bmm");
  CHECK(bmms.inductor == 2);
  CHECK(bmms.exact == bmms.inductor);
  CHECK(cats.our_launches == cats.inductor_launches);
}

TEST_CASE("a pad feeding a GEMM stores its input first under max-autotune (BERT fp16)",
          "[fusion]") {
  if (corpus_absent()) return;
  // The pooler selects the class token, casts it and pads 2 rows to 8 for addmm: the cast is
  // stored by a kernel of its own, the pad's kernel carries the select and the cast too.
  const Formed selects =
      formed("corpus/hf_bert_max_autotune_fp16", fusion::GroupKind::pointwise, "select");
  CHECK(selects.inductor == 2);
  CHECK(selects.exact == selects.inductor);
  const Formed pads =
      formed("corpus/hf_bert_max_autotune_fp16", fusion::GroupKind::pointwise, "constant_pad_nd");
  CHECK(pads.inductor == 1);
  CHECK(pads.exact == 1);
}

TEST_CASE("a layer norm feeding a padded GEMM is stored before the pad (ViT-Ti, fp32)",
          "[fusion]") {
  if (corpus_absent()) return;
  // Each block's layer norms store their output; the fc1 and qkv pads (130 rows to 132) are
  // kernels of their own where the library GEMM runs, and the layer norms' kernels hold no pad.
  const Formed pads =
      formed("corpus/tv_vit_tiny_max_autotune", fusion::GroupKind::pointwise, "constant_pad_nd");
  CHECK(pads.inductor >= 2);
  CHECK(pads.exact == pads.inductor);
  const Formed norms = formed("corpus/tv_vit_tiny_max_autotune",
                              fusion::GroupKind::persistent_reduction, "var_mean");
  CHECK(norms.inductor >= 4);
  CHECK(norms.exact == norms.inductor);
}
