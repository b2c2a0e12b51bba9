// GraphLowering.get_attr inlines a 1-d tensor constant of at most 8 elements
// (can_inline_constant): lowering.tensor makes it a Pointwise of its values, so it is no buffer
// and its get_attr node is among the origins of the kernels reading it. SSDLite's
// preprocessing reads its normalisation mean and std (3 values each) and its box coder's
// image size (2 values) so.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("small tensor constants are inlined with their get_attr as an origin (SSDLite)",
          "[fusion]") {
  const auto log = test::corpus_log("tv_ssdlite320_detection");
  if (!log) return;
  std::set<std::string> theirs;
  std::set<std::string> ours;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      const auto constants = [&](const fusion::FusionPlan& plan, std::set<std::string>& into) {
        for (const fusion::KernelGroup& g : plan.groups) {
          for (const graph::NodeId id : g.nodes) {
            const graph::Node& node = f.post_grad.node(id);
            if (node.op == graph::OpKind::get_attr) into.insert(node.name);
          }
        }
      };
      constants(f.inductor, theirs);
      constants(f.ours, ours);
    }
  }
  CHECK(theirs.size() == 5);
  CHECK(ours == theirs);
}
