// simd.py tiling_prevents_pointwise_fusion: a pointwise kernel reading channels-last while
// storing contiguous is tiled in 2-D, and a 1-D neighbour whose loads and stores would outweigh
// that tiling stays apart. A channels-last UNet's group-norm backward: the SiLU backward and
// the first half of the input gradient are one kernel, the second half goes with the sums.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a 2-D tiled pointwise kernel keeps apart from a neighbour of another tiling",
          "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_unet_train_cl_bf16"));
  REQUIRE(log);
  int tiled = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (!theirs.name.starts_with("triton_poi_") ||
            theirs.name.find("group_norm_backward") == std::string::npos) {
          continue;
        }
        ++tiled;
        INFO(theirs.name);
        const bool found = test::formed_exactly(f.ours, theirs);
        CHECK(found);
      }
    }
  }
  CHECK(tiled >= 8);
}

// With a symbolic image size, a convolution's output is ((s53 - 1)//8 + 1) square, and the
// stride of its channels, ((s53 - 1)//8 + 1)**2, expands with a lone 1: Inductor's
// find_coalesced_var then takes the channel loop for the contiguous one and tiles a batch norm
// in 2-D (y = batch x channels), a tiling that keeps it out of the squeeze-excite mean it feeds.
// MobileNetV3-Large with dynamic=True: each such batch norm is a kernel of its own.
TEST_CASE("a symbolic stride with a lone 1 tiles a batch norm apart from its mean", "[fusion]") {
  int norms = 0;
  int means = 0;
  test::for_each_inductor_kernel(
      "tv_mobilenet_v3_large_dynamic_bf16", fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        const bool norm = theirs.name.starts_with("triton_poi_fused__native_batch_norm");
        const bool mean = theirs.name.starts_with("triton_red_") &&
                          theirs.name.find("_mean_") != std::string::npos;
        if (!norm && !mean) return;
        norms += norm ? 1 : 0;
        means += mean ? 1 : 0;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      });
  if (!std::filesystem::exists(test::sample("corpus"))) return;
  CHECK(norms >= 9);
  CHECK(means >= 9);
}
