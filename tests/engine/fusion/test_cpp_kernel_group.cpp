// Inductor's C++ backend writes the CPU nodes between two flushes (a change of device, a library
// call) into one cpp_fused_* function. SSDLite's anchor generator computes its anchors on the
// CPU from iotas, cats and repeats: Inductor launches one kernel for all of it, which the plan
// must reproduce as one group, and the unit's launches must then match Inductor's.

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

TEST_CASE("the CPU nodes between two flushes are one C++ kernel (SSDLite's anchors)", "[fusion]") {
  const auto log = test::corpus_log("tv_ssdlite320_detection");
  if (!log) return;
  int cpp_kernels = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.name.rfind("cpp_fused", 0) != 0) continue;
        ++cpp_kernels;
        INFO(theirs.name);
        CHECK(theirs.nodes.size() > 100);
        CHECK(test::formed_exactly(f.ours, theirs));
        // Every planned group holding a CPU node is that one kernel.
        for (const fusion::KernelGroup& ours : f.ours.groups) {
          const bool on_cpu =
              std::any_of(ours.nodes.begin(), ours.nodes.end(), [&](graph::NodeId id) {
                const auto& meta = f.post_grad.node(id).meta;
                return meta && meta->device == "cpu";
              });
          if (on_cpu && ours.kind != fusion::GroupKind::extern_kernel) {
            CHECK(ours.nodes == theirs.nodes);
          }
        }
        CHECK(f.ours.launches() == f.inductor.launches());
      }
    }
  }
  CHECK(cpp_kernels == 1);
}
