// A view read by a GEMM and by another user is copied only where realize_hint leaves its value
// inline (one nontrivial load), and a graph output that is a view stores its value first
// (GraphLowering.run_node); either way the value's kernel keeps its own origins
// (docs/fusion-rules.md, fixed-layout-view-copy).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <utility>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

// How many of Inductor's kernels named with PREFIX the plan forms exactly (and how many there are).
std::pair<int, int> formed(const char* log_name, std::string_view prefix) {
  auto log = trace::read_trace(test::sample(log_name));
  REQUIRE(log);
  int exact = 0;
  int total = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (!theirs.name.starts_with(prefix)) continue;
        ++total;
        exact += test::formed_exactly(f.ours, theirs) ? 1 : 0;
      }
    }
  }
  return {exact, total};
}

}  // namespace

TEST_CASE("a view saved for the backward and read by a GEMM is not copied", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // T5: the attention output's clone, reshaped for the o projection and returned.
  const auto [t5_exact, t5_total] =
      formed("corpus/hf_t5_train_bf16", "triton_poi_fused__to_copy_clone_transpose_view");
  CHECK(t5_total >= 2);
  CHECK(t5_exact == t5_total);
}

TEST_CASE("a value loading one buffer twice is stored before a GEMM reads its view", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // Llama: the key gradient summed over the 2 repeated heads, transposed and cloned.
  const auto [exact, total] = formed("corpus/hf_llama_train_bf16",
                                     "triton_poi_fused__to_copy_clone_squeeze_sum_transpose_view");
  CHECK(total >= 1);
  CHECK(exact == total);
}
