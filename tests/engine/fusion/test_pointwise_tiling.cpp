// simd.py tiling_prevents_pointwise_fusion: a pointwise kernel reading channels-last while
// storing contiguous is tiled in 2-D, and a 1-D neighbour whose loads and stores would outweigh
// that tiling stays apart. A channels-last UNet's group-norm backward: the SiLU backward and
// the first half of the input gradient are one kernel, the second half goes with the sums.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

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
