// What library calls ask of their inputs and give their outputs (docs/fusion-rules.md).
// An ATen op Inductor neither lowers nor lists as a fallback runs as an implicit fallback; in a
// backward graph it requires contiguous inputs (GraphLowering.call_function: require_contiguous
// for a builtin op without a layout tag), so an input not in memory is a copy made while the
// call is lowered, carrying the call's origins (docs/fusion-rules.md, dense-fallback-inputs).
// A 1-d convolution requires its operands in its output's stride order (conv-stride-order-copy).
// A library GEMM outside max-autotune has a flexible output layout, so a cat is realized into it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "fxscope/fusion/lowering_ops.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("an implicit ATen fallback asks for dense inputs in a backward graph only", "[fusion]") {
  const char* lstm_backward = "torch.ops.aten._thnn_fused_lstm_cell_backward_impl.default";
  CHECK(fusion::fallback_requires_dense(lstm_backward, true));
  CHECK_FALSE(fusion::fallback_requires_dense(lstm_backward, false));
  // Registered by make_fallback with require_dense, forward or backward.
  CHECK(fusion::fallback_requires_dense("torch.ops.aten._thnn_fused_lstm_cell.default", false));
  // Registered without a constraint, or lowered: no copy.
  CHECK_FALSE(fusion::fallback_requires_dense(
      "torch.ops.aten.max_pool3d_with_indices_backward.default", true));
  CHECK_FALSE(fusion::fallback_requires_dense("torch.ops.aten.mm.default", true));
}

TEST_CASE("an LSTM cell's backward fallback copies its computed gradient input", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hand_lstmcell_loop_train"));
  REQUIRE(log);
  int copies = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      if (f.inductor.groups.empty()) continue;
      // The gradient of h summed with tanh's backward is the fallback's input: Inductor's
      // kernel computing it carries the fallback among its origins, and so must the plan's.
      for (const fusion::KernelGroup& g : f.ours.groups) {
        if (g.kind == fusion::GroupKind::extern_kernel) continue;
        copies +=
            static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](graph::NodeId id) {
              return ops::op_base_name(f.post_grad.node(id).target) ==
                     "_thnn_fused_lstm_cell_backward_impl";
            }));
      }
      CHECK(f.agreement.exact_count() == f.agreement.kernels.size());
    }
  }
  CHECK(copies >= 1);
}

TEST_CASE("a 1-d convolution copies an input laid out in another stride order", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/hf_wav2vec2"));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      if (f.inductor.groups.empty()) continue;
      // The positional convolution reads the projection transposed: the copy is a launch of
      // its own, as in Inductor's output code.
      CHECK(f.agreement.our_launches == f.agreement.inductor_launches);
      CHECK(f.agreement.exact_count() == f.agreement.kernels.size());
    }
  }
}

TEST_CASE("a cat of addmm results is written by the library calls themselves", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // tuned_addmm binds the library call to a flexible layout outside max-autotune: the 12 head
  // projections of the LSTM's steps are realized into the stacked output, no copy kernels.
  auto log = trace::read_trace(test::sample("corpus/hand_lstmcell_loop_train"));
  REQUIRE(log);
  int graphs = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      if (f.inductor.groups.empty()) continue;
      ++graphs;
      CHECK(f.agreement.our_launches == f.agreement.inductor_launches);
    }
  }
  CHECK(graphs == 2);
}
