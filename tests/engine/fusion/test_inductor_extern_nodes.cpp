// Inductor's extern launches (GEMMs, convolutions, ATen fallbacks such as SDPA) must name the
// post-grad node they run: the PyTorch backend attributes library kernels through them, and an
// extern group without nodes leaves its kernel time unattributed.

#include <catch2/catch.hpp>

#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "log_payloads.h"

using namespace fxscope;

TEST_CASE("every extern launch of every sample names its post-grad node", "[fusion][inductor]") {
  for (const std::string& name : test::all_samples()) {
    auto log = trace::read_trace(test::sample(name));
    REQUIRE(log);
    for (const auto& unit : log->units()) {
      for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
        for (const auto& g : f.inductor.groups) {
          if (g.kind != fusion::GroupKind::extern_kernel) continue;
          INFO(name << " " << g.name);
          CHECK_FALSE(g.nodes.empty());
        }
      }
    }
  }
}

TEST_CASE("GPT-2's SDPA fallback is the post-grad attention node", "[fusion][inductor]") {
  auto log = trace::read_trace(test::sample("gpt2_2layer"));
  REQUIRE(log);
  int sdpa = 0;
  for (const auto& f : fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode)) {
    for (const auto& g : f.inductor.groups) {
      if (g.name.find("scaled_dot_product") == std::string::npos ||
          g.kind != fusion::GroupKind::extern_kernel)
        continue;
      REQUIRE(g.nodes.size() == 1);
      CHECK(f.post_grad.node(g.nodes[0]).target.find("_scaled_dot_product_efficient_attention") !=
            std::string::npos);
      ++sdpa;
    }
  }
  CHECK(sdpa == 2);
}
