// max-autotune: tuned_mm, tuned_bmm and tuned_addmm each offer Triton templates, so a template
// kernel (triton_tem) carries everything its GEMM gathered while lowered, whichever GEMM it
// runs. A pointwise consumer reaches the benchmark of epilogue fusion (Scheduler.speedup_by_fusion)
// only when it loads the template's store over the same loops (a shared MemoryDep; a reshaping
// view of the output shares none); there fp32 templates keep it apart, bf16 and fp16 ones take it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/planner.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

struct TemplateCount {
  int inductor = 0;
  int matched = 0;
  std::size_t our_launches = 0;
  std::size_t inductor_launches = 0;
};

TemplateCount templates_of(const std::string& sample) {
  TemplateCount count;
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::max_autotune)) {
      count.our_launches += f.ours.launches();
      count.inductor_launches += f.inductor.launches();
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.kind != fusion::GroupKind::template_gemm) continue;
        ++count.inductor;
        INFO(theirs.name);
        const bool found = std::any_of(
            f.ours.groups.begin(), f.ours.groups.end(), [&](const fusion::KernelGroup& ours) {
              return ours.kind == fusion::GroupKind::template_gemm && ours.nodes == theirs.nodes;
            });
        CHECK(found);
        count.matched += found ? 1 : 0;
      }
    }
  }
  return count;
}

}  // namespace

TEST_CASE("mm and bmm templates carry what their GEMM gathered (Llama, bf16)", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // Every projection is an mm of a cast weight and a cast activation: the template's origins
  // hold both casts and their views, though other kernels compute them.
  const TemplateCount count = templates_of("corpus/hf_llama_max_autotune_bf16");
  CHECK(count.inductor >= 7);
  CHECK(count.matched == count.inductor);
}

TEST_CASE("an fp32 template keeps its pointwise consumer apart (GPT-2)", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // mm_default's bias add and GELU, read through a view and in fp32, stay a kernel of their own.
  const TemplateCount count = templates_of("corpus/hf_gpt2_max_autotune");
  CHECK(count.inductor >= 3);
  CHECK(count.matched == count.inductor);
  CHECK(count.our_launches == count.inductor_launches);
}

namespace {

// A bf16 addmm whose GELU reads it as stored ([64, 512]) or, with RESHAPED, through a view as
// [2, 32, 512]: the same elements at the same addresses, over other loops.
fusion::FusionPlan gelu_after_addmm(bool reshaped) {
  const std::string out = reshaped ? "[2, 32, 512][16384, 512, 1]" : "[64, 512][512, 1]";
  const std::string input = reshaped ? "view" : "addmm";
  std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"bf16[512][1]cuda:0\", arg1_1: \"bf16[64, 256][256, "
      "1]cuda:0\", arg2_1: \"bf16[256, 512][512, 1]cuda:0\"):\n"
      "        addmm: \"bf16[64, 512][512, 1]cuda:0\" = "
      "torch.ops.aten.addmm.default(arg0_1, arg1_1, arg2_1)\n";
  if (reshaped) {
    code +=
        "        view: \"bf16[2, 32, 512][16384, 512, 1]cuda:0\" = "
        "torch.ops.aten.view.default(addmm, [2, 32, 512])\n";
  }
  code += "        gelu: \"bf16" + out + "cuda:0\" = torch.ops.aten.gelu.default(" + input +
          ")\n"
          "        return (gelu,)\n";
  const auto parsed = graph::parse_fx_readable(code, "gelu_after_addmm");
  return fusion::plan(parsed.graph, fusion::Mode::max_autotune);
}

}  // namespace

TEST_CASE("a template takes an epilogue only over its own loops", "[fusion]") {
  const fusion::FusionPlan direct = gelu_after_addmm(false);
  REQUIRE(direct.launches() == 1);
  CHECK(direct.groups.front().kind == fusion::GroupKind::template_gemm);
  // Viewed as [2, 32, 512] the GELU's load of the template's buffer is another MemoryDep: no
  // shared data, so the GELU is a kernel of its own.
  const fusion::FusionPlan viewed = gelu_after_addmm(true);
  CHECK(viewed.launches() == 2);
}

TEST_CASE("a bf16 template takes a small epilogue over its own loops (residual MLP)", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // addmm_1 (64 x 512, 64 KB) takes the GELU, the scaling and the residual add: 7 launches.
  const TemplateCount count = templates_of("corpus/hand_mlp_max_autotune_bf16");
  CHECK(count.inductor == 2);
  CHECK(count.matched == count.inductor);
  CHECK(count.our_launches == count.inductor_launches);
}

TEST_CASE("an fp16 template keeps a GELU read through a view apart (BERT)", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // The intermediate addmm's output (256 x 1024) is viewed as 2 x 128 x 1024 for the GELU.
  const TemplateCount count = templates_of("corpus/hf_bert_max_autotune_fp16");
  CHECK(count.inductor >= 5);
  CHECK(count.matched == count.inductor);
  CHECK(count.our_launches == count.inductor_launches);
}
