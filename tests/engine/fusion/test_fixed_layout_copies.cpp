// A view with several users, one of them a GEMM (run_node's need_fixed_layout), of a value not in
// memory that reads a single buffer is copied into the view's strides (require_stride_order):
// the kernel carries the view's origins. Training steps show it on every weight cast for a GEMM
// and transposed again for the backward (`triton_poi_fused__to_copy_t`).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// Inductor's kernels of exactly a convert and a permute of it, and how many fxscope formed.
std::pair<int, int> cast_transposes(const std::string& name) {
  auto log = trace::read_trace(test::sample("corpus/" + name));
  REQUIRE(log);
  int theirs = 0;
  int formed = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const auto& g : f.inductor.groups) {
        if (g.nodes.size() != 2) continue;
        const auto base = [&](std::size_t k) {
          return ops::op_base_name(f.post_grad.node(g.nodes[k]).target);
        };
        if (base(0) != "convert_element_type" || base(1) != "permute") continue;
        ++theirs;
        const bool same =
            std::any_of(f.ours.groups.begin(), f.ours.groups.end(),
                        [&](const fusion::KernelGroup& o) { return o.nodes == g.nodes; });
        formed += same ? 1 : 0;
      }
    }
  }
  return {theirs, formed};
}

}  // namespace

TEST_CASE("a weight cast for a GEMM and its backward is copied with the transpose", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus/hf_llama_train_bf16"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  for (const std::string name : {"hf_llama_train_bf16", "hf_t5_train_bf16"}) {
    INFO(name);
    const auto [theirs, formed] = cast_transposes(name);
    CHECK(theirs >= 4);
    CHECK(formed == theirs);
  }
}
