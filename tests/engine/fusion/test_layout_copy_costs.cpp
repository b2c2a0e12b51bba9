// A layout copy (a convolution's channels-last weight or input, SDPA's aligned mask) computes
// nothing and writes as many bytes as it reads; its nodes are only Inductor's origins of the
// kernel. Counted as the convolution's FLOPs and one direction of bytes, ResNet-50's 9.4 MB weight
// copies were predicted compute-bound and their measured bandwidth reported at half.

#include <catch2/catch.hpp>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("layout copies cost their bytes both ways and no FLOPs", "[fusion][costs]") {
  auto log = trace::read_trace(test::sample("resnet50"));
  REQUIRE(log);
  std::size_t copies = 0;
  for (const auto& f : fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode)) {
    for (const auto& g : f.ours.groups) {
      if (!fusion::is_layout_copy(g)) continue;
      ++copies;
      INFO(g.name);
      CHECK(g.flops == 0.0);
      CHECK(g.bytes_read > 0);
      CHECK(g.bytes_written == g.bytes_read);
      // 512 x 512 x 3 x 3 f32 weights: 9.4 MB read, 9.4 MB written.
      if (g.numel == 2359296) CHECK(g.bytes_read + g.bytes_written == Approx(18874368.0));
    }
  }
  CHECK(copies == 18);  // the input image, the 7x7 stem and sixteen 3x3 weights
}
