// max-autotune: tuned_mm, tuned_bmm and tuned_addmm each offer Triton templates, so a template
// kernel (triton_tem) carries everything its GEMM gathered while lowered, whichever GEMM it
// runs. Whether the template takes its pointwise consumer as an epilogue is Inductor's benchmark
// (Scheduler.speedup_by_fusion): fp32 templates keep it apart, bf16 and fp16 ones take it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
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
  // mm_default's bias add and GELU (over 1 MB) stay a kernel of their own in fp32.
  const TemplateCount count = templates_of("corpus/hf_gpt2_max_autotune");
  CHECK(count.inductor >= 3);
  CHECK(count.matched == count.inductor);
  CHECK(count.our_launches == count.inductor_launches);
}
