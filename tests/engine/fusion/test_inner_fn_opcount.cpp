// Inductor's inner-function op count (ir.Loops.inner_fn_opcount, OpCounterCSE) decides which
// values a decoder's attention stores before the attention call: has_exceeded_max_reads holds for
// a Pointwise of more than realize_opcount_threshold (30) ops, and realize_hint then stores it
// when it makes more than one nontrivial load. A rotary embedding that cats the rotated halves
// is such a value: stored with its own origins, it needs no copy made by the attention call, and
// the q and k rotations share their angles' loads and fuse. The count names values as
// OpCounterCSE does (an op over the same operands once, a constant once), so a GELU backward of
// 29 ops stays inlined into the sum reading it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

namespace {

bool holds(const fusion::GraphFusion& f, const fusion::KernelGroup& g, std::string_view op) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](graph::NodeId id) {
    return ops::op_base_name(f.post_grad.node(id).target).starts_with(op);
  });
}

bool formed(const fusion::GraphFusion& f, const fusion::KernelGroup& theirs) {
  return test::formed_exactly(f.ours, theirs);
}

struct Rotary {
  int kernels = 0;  // Inductor's pointwise kernels computing a cat, outside the attention call
  int formed = 0;
  bool launches_match = true;
};

Rotary rotary(const std::string& sample, fusion::Mode mode) {
  Rotary r;
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, mode)) {
      if (f.inductor.groups.empty()) continue;
      r.launches_match &= f.ours.launches() == f.inductor.launches();
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.kind != fusion::GroupKind::pointwise || !holds(f, theirs, "cat") ||
            holds(f, theirs, "_scaled_dot_product")) {
          continue;
        }
        ++r.kernels;
        INFO(sample << ": " << theirs.name);
        CHECK(formed(f, theirs));
        r.formed += formed(f, theirs);
      }
    }
  }
  return r;
}

bool corpus_present() {
  if (std::filesystem::exists(test::sample("corpus/hf_phi"))) return true;
  WARN("sample_graphs/corpus/ is absent from this checkout");
  return false;
}

}  // namespace

TEST_CASE("a rotary embedding computed inline is stored before the attention call", "[fusion]") {
  if (!corpus_present()) return;
  SECTION("angles computed in the kernel (hand-written attention, dynamic shapes)") {
    const Rotary r = rotary("corpus/hand_attention_dynamic_fp16", fusion::Mode::default_mode);
    CHECK(r.kernels == 2);
    CHECK(r.formed == 2);
    CHECK(r.launches_match);
  }
  SECTION("the same under CUDA graphs (bf16)") {
    const Rotary r = rotary("corpus/hand_attention_ro_bf16", fusion::Mode::reduce_overhead);
    CHECK(r.kernels == 2);
    CHECK(r.formed == 2);
  }
  SECTION("a partial rotary: q and k rotated in one kernel (Phi)") {
    const Rotary r = rotary("corpus/hf_phi", fusion::Mode::default_mode);
    CHECK(r.kernels >= 1);
    CHECK(r.formed == r.kernels);
    CHECK(r.launches_match);
  }
  SECTION("a partial rotary of a fused qkv projection (GPT-NeoX, reduce-overhead)") {
    const Rotary r = rotary("corpus/hf_gpt_neox_ro", fusion::Mode::reduce_overhead);
    CHECK(r.kernels >= 1);
    CHECK(r.formed == r.kernels);
    CHECK(r.launches_match);
  }
  SECTION("k repeated for grouped-query attention: expand marks it reused (Llama, dynamic)") {
    const Rotary r = rotary("corpus/hf_llama_dynamic", fusion::Mode::default_mode);
    CHECK(r.kernels >= 1);
    CHECK(r.formed == r.kernels);
    CHECK(r.launches_match);
  }
}

TEST_CASE("a GELU backward of 29 ops as OpCounterCSE counts them stays inlined (GPT-2 training)",
          "[fusion]") {
  if (!corpus_present()) return;
  auto log = trace::read_trace(test::sample("corpus/hf_gpt2_train"));
  REQUIRE(log);
  int sums = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        // The bias gradient of the MLP's first projection: a sum over the GELU's backward.
        if (!holds(f, theirs, "tanh") || !holds(f, theirs, "sum")) continue;
        ++sums;
        INFO(theirs.name);
        CHECK(formed(f, theirs));
      }
    }
  }
  CHECK(sums >= 2);
}

TEST_CASE("a 2-d pad feeding a GEMM stores its input first (Whisper)", "[fusion]") {
  if (!corpus_present()) return;
  auto log = trace::read_trace(test::sample("corpus/hf_whisper_fp16"));
  REQUIRE(log);
  int pads = 0;
  int formed_pads = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (theirs.kind != fusion::GroupKind::pointwise || !holds(f, theirs, "constant_pad_nd")) {
          continue;
        }
        ++pads;
        formed_pads += formed(f, theirs);
      }
      // The encoder's output is cast once per cross-attention projection: each cast is stored
      // (by the layer norm's kernel), and each pad reads its own cast, so no two pads fuse.
      for (const fusion::KernelGroup& ours : f.ours.groups) {
        const auto count = std::count_if(ours.nodes.begin(), ours.nodes.end(), [&](auto id) {
          return ops::op_base_name(f.post_grad.node(id).target) == "constant_pad_nd";
        });
        INFO(ours.name);
        CHECK(count <= 1);
      }
    }
  }
  INFO(formed_pads << " of " << pads << " pad kernels formed");
  CHECK(pads >= 4);
  CHECK(formed_pads >= 3);
}

TEST_CASE("a fill counts as one constant in the op count (BERT's log-softmax backward)",
          "[fusion]") {
  if (!corpus_present()) return;
  // The masked-LM loss gradient is 28 ops as OpCounterCSE names them (the fills of 0, 0.0 and
  // -1.0 are constants, no op of their own), so it stays inlined; with the cast and the
  // residual tangent added it is past 30 and stored by its own reduction kernel, and the bias
  // gradient's split sum reads that buffer alone.
  auto log = trace::read_trace(test::sample("corpus/hf_bert_mlm_train_fp16"));
  REQUIRE(log);
  int sums = 0;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::default_mode)) {
      for (const fusion::KernelGroup& theirs : f.inductor.groups) {
        if (!theirs.name.starts_with("triton_red_fused_sum_view") &&
            !theirs.name.starts_with("triton_per_fused_sum_view")) {
          continue;
        }
        ++sums;
        INFO(theirs.name);
        CHECK(formed(f, theirs));
      }
    }
  }
  CHECK(sums >= 2);
}
