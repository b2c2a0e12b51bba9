// WelfordReduction.create stores each output of a var_mean (mean, m2) in a buffer of its own, so
// a layer norm's output loads its input, the mean, the variance, the weight and the bias: five
// reads. Reused (BERT's q, k and v projections read it), it is stored right after it is
// lowered (should_realize_on_reuse, realize_reads_threshold 4), before the casts feeding the
// GEMMs: the templates' origins then hold the casts, not the layer norm.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("a value loading a var_mean's mean and variance makes two reads (BERT)", "[fusion]") {
  const auto log = test::corpus_log("hf_bert_max_autotune_fp16");
  if (!log) return;
  int templates = 0;
  int matched = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::max_autotune)) {
      for (const fusion::KernelGroup& ours : f.ours.groups) {
        if (ours.kind != fusion::GroupKind::template_gemm) continue;
        ++templates;
        INFO(ours.name);
        CHECK(std::none_of(ours.nodes.begin(), ours.nodes.end(), [&](graph::NodeId id) {
          return ops::op_base_name(f.post_grad.node(id).target) == "var_mean";
        }));
        matched += std::any_of(
            f.inductor.groups.begin(), f.inductor.groups.end(),
            [&](const fusion::KernelGroup& theirs) { return theirs.nodes == ours.nodes; });
      }
    }
  }
  CHECK(templates >= 6);
  CHECK(matched >= 4);
}
