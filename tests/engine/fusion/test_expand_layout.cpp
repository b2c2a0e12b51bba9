// An expand records stride 0 along what it broadcasts: RegNet's average-pool backward spreads
// the [N, C, 1, 1] gradient over the 7x7 window with strides [C, 1, 0, 0]. Its channels' stride
// is 1, yet it is a view of no layout, so nothing computed from it is channels-last: the batch
// norm backward that reads it keeps the contiguous order of its other inputs, and its input
// gradient is one kernel with its sums (no copy for the convolution's backward).

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("an expand of stride 0 passes no channels-last layout to what reads it", "[fusion]") {
  int checked = 0;
  test::for_each_inductor_kernel(
      "tv_regnet_y_400mf_train", fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        if (theirs.name.find("native_batch_norm_backward") == std::string::npos ||
            theirs.name.find("convolution_backward") == std::string::npos) {
          return;
        }
        ++checked;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      });
  if (!std::filesystem::exists(test::sample("corpus"))) return;
  CHECK(checked >= 3);
}
