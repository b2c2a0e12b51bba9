// A bilinear upsampling gathers its input at four corners through a row index and a column index
// (_unsafe_index with two index tensors, lowering.index_impl_helper). Inductor counts each corner
// as a load of its own (its address holds other indirect variables), each iota as an index_expr
// of its own dim, and the inlined normalisation constants as lowering.tensor's binary search; so
// SSDLite's two lerps along the columns are stored (has_large_inner_fn with two nontrivial
// reads), and the two, loading the image in the same places of their bodies (LoopBody numbers
// its indirect variables in order), share MemoryDeps and fuse into one kernel per image.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/memory_index.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("an upsampling's column lerps are stored and fused as Inductor's kernel (SSDLite)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_ssdlite320_detection");
  if (!log) return;
  int kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (!g.name.starts_with("triton_poi_fused__to_copy__unsafe_index_add_arange_clamp_div")) {
          continue;
        }
        ++kernels;
        INFO(g.name);
        CHECK(std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                          [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; }));
      }
    }
  }
  CHECK(kernels == 2);
}

TEST_CASE("indirect loads match across kernels by their place in each kernel", "[fusion]") {
  // Two kernels' first indirect loads of one buffer are the same MemoryDep text (indirect0),
  // whatever they were loaded through; another buffer's, or no indirect load, is not.
  fusion::MemoryDep first;
  first.buffer = 3;
  first.opaque = true;
  first.tag = 1;
  fusion::MemoryDep again = first;
  CHECK(first.same_as(again));
  fusion::MemoryDep other_buffer = first;
  other_buffer.buffer = 4;
  CHECK_FALSE(first.same_as(other_buffer));
  fusion::MemoryDep window = first;
  window.tag = 0;  // an address not modelled: equal to nothing
  CHECK_FALSE(window.same_as(window));
}
