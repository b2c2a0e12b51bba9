// An expand records stride 0 along what it broadcasts: RegNet's average-pool backward spreads
// the [N, C, 1, 1] gradient over the 7x7 window with strides [C, 1, 0, 0]. Its channels' stride
// is 1, yet it is a view of no layout, so nothing computed from it is channels-last: the batch
// norm backward that reads it keeps the contiguous order of its other inputs, and its input
// gradient is one kernel with its sums (no copy for the convolution's backward).

#include <catch2/catch.hpp>

#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "graph_lookup.h"

using namespace fxscope;

TEST_CASE("an expand of stride 0 passes no channels-last layout to what reads it", "[fusion]") {
  const auto log = test::corpus_log("tv_regnet_y_400mf_train");
  if (!log) return;
  int checked = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.name.find("native_batch_norm_backward") == std::string::npos ||
            theirs.name.find("convolution_backward") == std::string::npos) {
          continue;
        }
        ++checked;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      }
    }
  }
  CHECK(checked >= 3);
}
