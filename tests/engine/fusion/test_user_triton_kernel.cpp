// A user's @triton.jit kernel called in the compiled region (triton_kernel_wrapper_mutation):
// Inductor launches it as a kernel of its own (UserDefinedTritonKernel) whose origins are its
// arguments' views, and what later reads a buffer it stores into depends on it, so a kernel
// after it cannot fuse with one before it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a user's Triton kernel launches alone and orders what reads its output", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus/hand_user_triton_bf16"))) {
    WARN("sample_graphs/corpus/hand_user_triton_bf16 is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_user_triton_bf16"));
  REQUIRE(log);
  REQUIRE_FALSE(log->units().empty());
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(fused.size() == 1);
  const auto& f = fused.front();
  const auto has = [&](const std::set<std::string>& wanted) {
    return std::any_of(
        f.ours.groups.begin(), f.ours.groups.end(),
        [&](const fusion::KernelGroup& g) { return test::node_names(f.post_grad, g) == wanted; });
  };
  // The kernel with the view of the GEMM output it reads.
  CHECK(has({"view_1", "triton_kernel_wrapper_mutation"}));
  // The residual add reads the second GEMM, which reads the user kernel's output: it cannot join
  // the layer norm, which the first GEMM (and so the user kernel) reads.
  CHECK(has({"view_4", "add_2"}));
  for (const fusion::KernelGroup& g : f.ours.groups) {
    const auto n = test::node_names(f.post_grad, g);
    CHECK_FALSE((n.contains("var_mean") && n.contains("add_2")));
  }
  CHECK(f.agreement.our_launches == f.agreement.inductor_launches);
  CHECK(f.ours.unknown_ops.empty());
}
