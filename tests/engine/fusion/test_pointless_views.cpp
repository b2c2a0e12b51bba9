// A view that leaves its input's sizes as they are makes no IR node in Inductor's lowering
// (lowering.expand, View.create, squeeze return their input), so it is no kernel's origin; an
// expand written with -1 is compared as written and makes an ExpandView, an origin like any view.
// Both are checked on real corpus logs against Inductor's own kernels.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

bool in_any(const std::vector<fusion::KernelGroup>& groups, graph::NodeId id) {
  return std::any_of(groups.begin(), groups.end(), [&](const fusion::KernelGroup& g) {
    return std::binary_search(g.nodes.begin(), g.nodes.end(), id);
  });
}

// Calls CHECK_NODE(fusion, id) for every expand of the corpus log NAME; how many there were.
template <typename Check>
int for_each_expand(const std::string& name, Check check_node) {
  const std::string path = test::sample("corpus/" + name);
  if (!std::filesystem::exists(path)) return -1;
  auto log = trace::read_trace(path);
  REQUIRE(log);
  int count = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (graph::NodeId id = 0; id < f.post_grad.size(); ++id) {
        const graph::Node& node = f.post_grad.node(id);
        if (!node.is_op() || ops::op_base_name(node.target) != "expand") continue;
        if (check_node(f, id)) ++count;
      }
    }
  }
  return count;
}

}  // namespace

TEST_CASE("an expand to its own sizes is no kernel's origin (Swin-T's q @ k)", "[fusion]") {
  const int checked =
      for_each_expand("tv_swin_t", [](const fusion::GraphFusion& f, graph::NodeId id) {
        if (!fusion::pointless_view(f.post_grad, id)) return false;
        INFO(f.post_grad.node(id).name);
        CHECK_FALSE(in_any(f.inductor.groups, id));
        CHECK_FALSE(in_any(f.ours.groups, id));
        return true;
      });
  if (checked < 0) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  CHECK(checked >= 12);
}

TEST_CASE("an expand written with -1 is an origin like any view (Mistral's mask)", "[fusion]") {
  int kept = 0;
  const int checked =
      for_each_expand("hf_mistral_fp16", [&](const fusion::GraphFusion& f, graph::NodeId id) {
        const graph::Node& node = f.post_grad.node(id);
        const graph::Node& input = f.post_grad.node(node.args[0].as_node());
        if (!input.meta || !node.meta || input.meta->sizes != node.meta->sizes) return false;
        INFO(node.name);
        const bool theirs = in_any(f.inductor.groups, id);
        CHECK(theirs == in_any(f.ours.groups, id));
        if (fusion::pointless_view(f.post_grad, id)) CHECK_FALSE(theirs);
        kept += theirs ? 1 : 0;
        return true;
      });
  if (checked < 0) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  CHECK(kept >= 1);
}
