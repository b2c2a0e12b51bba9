// Layouts Inductor decides late. A realized value whose layout nothing fixes is stored in the
// order its loads step through (ComputedBuffer.decide_layout, get_fill_order), a copy an
// attention call requires is laid out in the FX value's stride order (sdpa_constraint,
// require_stride_order), and each node's loops follow its store (simplify_and_reorder). So a
// layer norm's transposed output is stored in the reduction's order and fuses with it (ViT-Ti),
// and a decoder's q copy (stored as its projection is laid out) shares no address with the
// head-repeated k copy (contiguous) and stays a kernel of its own.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "fxscope/fusion/captured_mode.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

struct Launches {
  std::size_t ours = 0;
  std::size_t inductor = 0;
};

Launches launches_of(const std::string& sample) {
  Launches out;
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    const fusion::Mode mode = fusion::captured_mode(unit).value_or(fusion::Mode::default_mode);
    for (const auto& f : fusion::fuse_unit(unit, mode)) {
      out.ours += f.ours.launches();
      out.inductor += f.inductor.launches();
    }
  }
  return out;
}

}  // namespace

TEST_CASE("decoder attention's q and k copies launch as Inductor's", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // Stored contiguous, q's and k's copies would share the rotary angles' loads and fuse: one
  // launch fewer per layer.
  for (const char* sample : {"corpus/hf_gemma_max_autotune", "corpus/hf_phi3_bf16",
                             "corpus/hf_qwen2_bf16_ro", "corpus/hf_mistral_fp16"}) {
    INFO(sample);
    const Launches l = launches_of(sample);
    CHECK(l.inductor > 0);
    CHECK(l.ours == l.inductor);
  }
}

TEST_CASE("a transposed layer norm output is stored in the reduction's order (ViT-Ti)",
          "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // Inductor: 32 launches. Stored contiguous, the first layer norm's output is a pointwise
  // kernel apart from its reduction (34).
  const Launches l = launches_of("corpus/tv_vit_tiny_max_autotune");
  CHECK(l.inductor == 32);
  CHECK(l.ours <= 33);
}
