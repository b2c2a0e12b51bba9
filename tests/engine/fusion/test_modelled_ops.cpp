// Ops outside the op table that fxscope models (an embedding's backward index_put_, a runtime
// check of an unbacked size, the fallbacks its runtime has kernels for, an optimizer's foreach
// ops and the higher-order ops it lowers, in every mode) are planned as what they are, and no
// plan calls them unknown: the "unknown op" note is kept for what fxscope cannot know, such as a
// custom op whose body is the program's own Python.

#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// Every op the plans of LOG in MODE call unknown, with its count.
std::map<std::string, std::size_t> unknown_ops(const std::string& log_name, fusion::Mode mode) {
  std::map<std::string, std::size_t> unknown;
  const auto log = test::corpus_log(log_name);
  if (!log) return unknown;
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, mode)) {
      for (const auto& op : f.ours.unknown_ops) unknown[op.target] += op.count;
    }
  }
  return unknown;
}

}  // namespace

TEST_CASE("ops fxscope models by name are no unknown ops", "[fusion]") {
  for (const char* name :
       {"tv_swin_t_train_bf16", "hf_gpt2_train", "hand_lstmcell_loop_train", "hf_mixtral_bf16",
        "hand_moe_sparse_unbacked_bf16", "hand_mlp_train_compiled_adamw",
        "hand_flex_attention_train_bf16", "hand_user_triton_bf16"}) {
    for (const fusion::Mode mode : {fusion::Mode::eager, fusion::Mode::default_mode}) {
      INFO(name << " in " << fusion::to_string(mode));
      CHECK(unknown_ops(name, mode).empty());
    }
  }
}

TEST_CASE("a custom op stays an unknown op, named", "[fusion]") {
  const auto unknown = unknown_ops("hand_custom_op_fp16", fusion::Mode::default_mode);
  if (unknown.empty()) return;  // corpus absent: warned
  CHECK(unknown.size() == 1);
  CHECK(unknown.begin()->first == "torch.ops.fxscope_corpus.rms_scale.default");
}

TEST_CASE("torch.export's training IR has its composite ops priced and no section warned",
          "[fusion]") {
  // torch.export keeps linear, conv2d, batch_norm, flatten and chunk, which Dynamo's AOT graphs
  // decompose, and prints its graph signature and range constraints after the module.
  const std::string path =
      test::sample("export_program/dedicated_log_torch_trace_8o3_upov.log.zst");
  auto log = trace::read_trace(path);
  REQUIRE(log);
  REQUIRE(!log->units().empty());
  const auto plans = fusion::fuse_unit(log->units().front(), fusion::Mode::eager);
  REQUIRE(plans.size() == 1);
  CHECK(plans.front().ours.unknown_ops.empty());
  CHECK(plans.front().warnings.empty());
  for (const auto& w : plans.front().warnings) WARN(w.message);
  int gemms = 0;
  for (const auto& g : plans.front().ours.groups) {
    for (const auto id : g.nodes) {
      gemms +=
          ops::classify(plans.front().post_grad.node(id).target).op_class == ops::OpClass::gemm;
    }
  }
  CHECK(gemms == 2);  // the two linear layers
}
