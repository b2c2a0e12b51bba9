// lowering.index_put_impl_: index_put_ with accumulate (an embedding's backward) stores its zero
// fill as a kernel of its own, then an ir.Scatter into it whose values are inlined, carrying the
// fill's origins: the scatter fuses with the kernel computing its values (GPT-2's and BERT's
// layer-norm backward) rather than running as a library call.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

int scatters_matched(const std::string& sample, int& scatters) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  int matched = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        const bool scatter =
            std::any_of(theirs.nodes.begin(), theirs.nodes.end(), [&](graph::NodeId id) {
              const std::string_view op = ops::op_base_name(f.post_grad.node(id).target);
              return op == "index_put" || op == "index_put_";
            });
        if (!scatter) continue;
        ++scatters;
        INFO(theirs.name);
        const bool found = test::formed_exactly(f.ours, theirs);
        CHECK(found);
        matched += found ? 1 : 0;
      }
    }
  }
  return matched;
}

}  // namespace

TEST_CASE("index_put_ with accumulate is a Scatter fused with its values' kernel", "[fusion]") {
  if (!std::filesystem::exists(test::sample("corpus"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  for (const char* sample : {"corpus/hf_gpt2_train", "corpus/hand_moe_sparse_unbacked_bf16"}) {
    INFO(sample);
    int scatters = 0;
    const int matched = scatters_matched(sample, scatters);
    CHECK(scatters >= 2);
    CHECK(matched == scatters);
  }
}

TEST_CASE("a scatter into zeros keeps self's layout, whatever the values' (FCN training)",
          "[fusion]") {
  // FCN-ResNet50's bilinear upsampling backward scatters a channels-last gradient into zeros:
  // the sums are laid out as the zeros are, so the classifier's bias gradient sums them as an
  // inner reduction, one kernel with the adds as its prologue, as Inductor's is.
  int kernels = 0;
  test::for_each_inductor_kernel(
      "tv_fcn_resnet50_train_bf16", fusion::Mode::default_mode,
      [&](const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
        if (theirs.kind != fusion::GroupKind::reduction ||
            !test::holds_op(f.post_grad, theirs, "sum") ||
            !test::holds_op(f.post_grad, theirs, "add")) {
          return;
        }
        bool after_scatter = false;
        for (const graph::NodeId id : theirs.nodes) {
          for (const graph::NodeId in : f.post_grad.inputs(id)) {
            after_scatter |=
                ops::op_base_name(f.post_grad.node(in).target).starts_with("index_put");
          }
        }
        if (!after_scatter) return;
        ++kernels;
        INFO(theirs.name);
        CHECK(test::formed_exactly(f.ours, theirs));
      });
  if (!std::filesystem::exists(test::sample("corpus"))) return;
  CHECK(kernels >= 1);
}
