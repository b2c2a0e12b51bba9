// Reduction.num_splits tells inner from outer reductions by the loads of the reduction's own
// loop, its inlined producers included: a layer norm over a transposed value not in memory
// (wav2vec2's feature projection: gelu, transpose, layer norm) reads its source along the reduced
// dim with a stride, so it is an outer reduction over few rows and splits into two kernels, its
// normalisation a third.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a layer norm over a transpose not in memory votes outer and splits", "[fusion]") {
  const std::string path = test::sample("corpus/hf_wav2vec2");
  if (!std::filesystem::exists(path)) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(path);
  REQUIRE(log);
  int split_norms = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        const bool first_pass = g.name.starts_with("triton_red_fused_gelu_native_layer_norm");
        if (!first_pass) continue;
        ++split_norms;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(split_norms >= 1);
}
