// ComputedBuffer.make_loader: a stored Pointwise that loads nothing (a zero fill saved for the
// backward) is recomputed by what reads it directly. A functional index_put's destination is then
// a fill of its own, made while index_put is lowered (with its origins), and the saved fill is a
// kernel holding nothing else, as in Inductor's output code.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a saved zero fill is a kernel of its own and index_put fills a copy", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_moe_topk_train"));
  REQUIRE(log);
  int saved_fills = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        // Inductor's kernel storing the forward's new_zeros, returned for the backward.
        if (test::node_names(f.post_grad, theirs) != std::set<std::string>{"full_default_1"})
          continue;
        ++saved_fills;
        const bool found = test::formed_exactly(f.ours, theirs);
        CHECK(found);
      }
      // The index_put's own fill and its scatter: two kernels with index_put's origins.
      int with_index_put = 0;
      for (const fusion::KernelGroup& ours : f.ours.groups) {
        const std::set<std::string> n = test::node_names(f.post_grad, ours);
        if (n.contains("index_put")) {
          ++with_index_put;
          CHECK_FALSE(n.contains("full_default_1"));
        }
      }
      if (saved_fills > 0 && with_index_put > 0) CHECK(with_index_put == 2);
    }
  }
  CHECK(saved_fills >= 1);
}
