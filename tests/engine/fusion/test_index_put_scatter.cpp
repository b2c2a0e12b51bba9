// lowering.index_put_impl_: index_put_ with accumulate (an embedding's backward) stores its zero
// fill as a kernel of its own, then an ir.Scatter into it whose values are inlined, carrying the
// fill's origins: the scatter fuses with the kernel computing its values (GPT-2's and BERT's
// layer-norm backward) rather than running as a library call.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

int scatters_matched(const std::string& sample, int& scatters) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  int matched = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const bool scatter =
            std::any_of(theirs.nodes.begin(), theirs.nodes.end(), [&](graph::NodeId id) {
              const std::string_view op = ops::op_base_name(f.post_grad.node(id).target);
              return op == "index_put" || op == "index_put_";
            });
        if (!scatter) continue;
        ++scatters;
        INFO(theirs.name);
        const bool found = std::any_of(
            f.ours.groups.begin(), f.ours.groups.end(),
            [&](const fusion::KernelGroup& ours) { return ours.nodes == theirs.nodes; });
        CHECK(found);
        matched += found ? 1 : 0;
      }
    }
  }
  return matched;
}

}  // namespace

TEST_CASE("index_put_ with accumulate is a Scatter fused with its values' kernel", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  for (const char* sample : {"corpus/hf_gpt2_train", "corpus/hand_moe_sparse_unbacked_bf16"}) {
    INFO(sample);
    int scatters = 0;
    const int matched = scatters_matched(sample, scatters);
    CHECK(scatters >= 2);
    CHECK(matched == scatters);
  }
}
