#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "log_payloads.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

gpu::PlannedSteps steps_of(const std::string& sample, fusion::Mode mode) {
  const auto f = test::sample_fusion(sample, mode);
  return gpu::plan_steps(f.post_grad, f.ours, {}, mode == fusion::Mode::max_autotune);
}

// The default mode's plan of the first graph of corpus log NAME's first unit, and its steps;
// nullopt, with a warning, where the corpus is absent from the checkout.
std::optional<std::pair<fusion::GraphFusion, gpu::PlannedSteps>> corpus_default_plan(
    const std::string& name) {
  const std::string path = test::sample("corpus/" + name);
  if (!std::filesystem::exists(path)) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return std::nullopt;
  }
  auto log = trace::read_trace(path);
  REQUIRE(log);
  auto fusions = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(!fusions.empty());
  fusion::GraphFusion f = std::move(fusions.front());
  gpu::PlannedSteps s = gpu::plan_steps(f.post_grad, f.ours, f.hints, false);
  return std::make_pair(std::move(f), std::move(s));
}

}  // namespace

TEST_CASE("residual MLP: two cuBLASLt GEMMs and one generated epilogue", "[gpu]") {
  const auto s = steps_of("residual_mlp", fusion::Mode::default_mode);
  INFO((s.skipped.empty() ? "" : s.skipped.front().why));
  REQUIRE(s.skipped.empty());
  REQUIRE(s.steps.size() == 3);
  CHECK(s.steps[0].kind == gpu::StepKind::gemm);
  CHECK(s.steps[0].gemm->bias_vector.has_value());  // addmm's bias rides in the epilogue
  CHECK(s.steps[1].kind == gpu::StepKind::gemm);
  CHECK(s.steps[2].kind == gpu::StepKind::generated);
  CHECK(s.ran_ops == s.ops);
}

TEST_CASE("max-autotune splits a GEMM template into the GEMM and its epilogue", "[gpu]") {
  const auto s = steps_of("residual_mlp", fusion::Mode::max_autotune);
  REQUIRE(s.skipped.empty());
  CHECK(s.steps.front().kind == gpu::StepKind::gemm);
  CHECK(s.steps.front().group_name == "triton_tem_fused_addmm_permute_0");
  bool tuned = false;
  for (const auto& step : s.steps) tuned = tuned || step.variants.size() > 1;
  CHECK(tuned);  // a generated kernel has launch configurations to try
}

TEST_CASE("every buffer a step reads was written by an earlier step or is an input", "[gpu]") {
  for (const std::string name : {"residual_mlp", "pointwise_chain", "resnet18", "gpt2_2layer"}) {
    for (const auto mode : fusion::kAllModes) {
      const auto s = steps_of(name, mode);
      INFO(name << " " << fusion::to_string(mode) << ": "
                << (s.read_before_write.empty() ? "" : s.read_before_write.front()));
      CHECK(s.read_before_write.empty());
    }
  }
}

TEST_CASE("eager runs one step per op of the AOT graph", "[gpu]") {
  const auto s = steps_of("pointwise_chain", fusion::Mode::eager);
  CHECK(s.skipped.empty());
  CHECK(s.steps.size() == 21);
  CHECK(s.ran_ops == s.ops);
}

TEST_CASE("coverage of every sample's first unit in every mode", "[gpu]") {
  for (const auto& name : test::all_samples()) {
    auto log = trace::read_trace(test::sample(name));
    REQUIRE(log);
    for (const auto mode : fusion::kAllModes) {
      auto f = fusion::fuse_unit(log->units().front(), mode);
      const auto s = gpu::plan_steps(f.front().post_grad, f.front().ours, {}, false);
      std::printf("step coverage %-28s %-16s %5zu of %5zu ops%s%s\n", name.c_str(),
                  std::string(fusion::to_string(mode)).c_str(), s.ran_ops, s.ops,
                  s.skipped.empty() ? "" : "  first gap: ",
                  s.skipped.empty() ? "" : s.skipped.front().why.c_str());
      for (const auto& gap : s.read_before_write) std::printf("  %s\n", gap.c_str());
      CHECK(s.ran_ops <= s.ops);
      for (const auto& skip : s.skipped) CHECK_THAT(skip.why, Catch::StartsWith("group "));
    }
  }
}

TEST_CASE("a head of GPT-2's split QKV projection is a view of the projection", "[gpu]") {
  // permute_2 <- view_5 <- getitem_2 <- split <- view_2 <- addmm: the view of a strided slice
  // needs no copy (PyTorch's view succeeded on it), so attention reads addmm's buffer.
  const auto f = test::sample_fusion("gpt2_2layer", fusion::Mode::default_mode);
  const auto q = f.post_grad.find("permute_2");
  REQUIRE(q);
  const auto alias = codegen::alias_of(f.post_grad, *q, {});
  REQUIRE(alias);
  CHECK(f.post_grad.node(alias->base).name == "addmm");
  CHECK(alias->offset == 0);  // the query is the split's first piece
  const auto v = codegen::alias_of(f.post_grad, *f.post_grad.find("permute_1"), {});
  REQUIRE(v);
  CHECK(v->offset == 2 * 768);  // the value, the third piece of 768 columns
}

TEST_CASE(
    "which steps index by data, on GPT-2: the embedding lookups, and nothing a layer norm follows",
    "[gpu]") {
  const auto f = test::sample_fusion("gpt2_2layer", fusion::Mode::reduce_overhead);
  const auto s = gpu::plan_steps(f.post_grad, f.ours, {}, false);
  REQUIRE(!s.steps.empty());
  // The first step gathers the token and position embeddings (the reference copy is then timed
  // alone for the step after it: copy_in_place.h).
  CHECK(gpu::indexes_by_data(s.steps.front(), f.post_grad));
  std::size_t gemms = 0;
  std::size_t norms = 0;
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const gpu::StepPlan& step = s.steps[i];
    if (step.kind == gpu::StepKind::gemm) {
      ++gemms;
      CHECK_FALSE(gpu::indexes_by_data(step, f.post_grad));
    }
    // Every layer norm after the first runs right after a step that can be replayed alone.
    if (i > 0 && step.group_name.find("var_mean") != std::string::npos) {
      ++norms;
      INFO(step.group_name << " after " << s.steps[i - 1].group_name);
      CHECK_FALSE(gpu::indexes_by_data(s.steps[i - 1], f.post_grad));
    }
  }
  CHECK(gemms >= 8);  // 4 a layer
  CHECK(norms >= 4);
}

TEST_CASE("a GEMM template's prologue no other group computes runs in a kernel before the GEMM",
          "[gpu]") {
  // The residual MLP in max-autotune: the second addmm's template casts its f32 weight and bias
  // to bf16 (Inductor's prologue origins) and takes the GELU, the scaling and the residual add as
  // its epilogue. Kernels of their own compute the casts; without them no other group does, and
  // the casts run in a kernel of their own, then the GEMM reads their buffers, then the epilogue.
  const auto f =
      test::sample_fusion("corpus/hand_mlp_max_autotune_bf16", fusion::Mode::max_autotune);
  fusion::FusionPlan plan = f.ours;
  const auto casts = std::erase_if(plan.groups, [&](const fusion::KernelGroup& g) {
    return g.nodes.size() == 1 &&
           (f.post_grad.node(g.nodes.front()).name == "convert_element_type_6" ||
            f.post_grad.node(g.nodes.front()).name == "convert_element_type_7");
  });
  CHECK(casts == 2);
  const auto s = gpu::plan_steps(f.post_grad, plan, {}, true);
  const std::string tem = "triton_tem_fused_add_addmm_convert_element_type_erf_mul_permute_6";
  std::vector<gpu::StepKind> kinds;
  for (const auto& step : s.steps) {
    if (step.group_name == tem) kinds.push_back(step.kind);
  }
  REQUIRE(kinds.size() == 3);
  CHECK(kinds[0] == gpu::StepKind::generated);
  CHECK(kinds[1] == gpu::StepKind::gemm);
  CHECK(kinds[2] == gpu::StepKind::generated);
  for (const auto& skip : s.skipped) CHECK(skip.name != tem);
}

TEST_CASE("a GEMM template's prologue over an earlier GEMM's product runs after that GEMM",
          "[gpu][nvrtc]") {
  // DeBERTa-v2's max-autotune backward: a template's prologue casts another template's bf16
  // product (view_84 of mm_8) to f32 and adds it to the residual gradient. That product is stored
  // by a group before this one, so the prologue's kernel reads it there: every op is planned,
  // nothing is read before a step writes it, and the prologue compiles.
  const std::string path = test::sample("corpus/hf_deberta_v2_train_bf16");
  if (!std::filesystem::exists(path)) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(path);
  REQUIRE(log);
  const auto f = gpu::backward_fusion(log->units().front(), fusion::Mode::max_autotune);
  REQUIRE(f);
  const auto s = gpu::plan_steps(f->post_grad, f->ours, f->hints, true);
  for (const auto& skip : s.skipped) INFO(skip.name << ": " << skip.why);
  CHECK(s.skipped.empty());
  std::string early;
  for (const auto& r : s.read_before_write) early += " " + r;
  INFO("read before written:" << early);
  CHECK(s.read_before_write.empty());
  const std::string tem =
      "triton_tem_fused_add_clone_convert_element_type_mm_mul_permute_reshape_squeeze_sum_90";
  std::vector<const gpu::StepPlan*> steps;
  for (const auto& step : s.steps) {
    if (step.group_name == tem) steps.push_back(&step);
  }
  REQUIRE(steps.size() >= 2);
  CHECK(steps[0]->kind == gpu::StepKind::generated);
  CHECK(steps[1]->kind == gpu::StepKind::gemm);
  REQUIRE_FALSE(steps[0]->variants.empty());
  const auto& prologue = steps[0]->variants.front();
  const auto cubin = gpu::compile_cuda(prologue.source, prologue.entry, {});
  INFO((cubin ? std::string() : cubin.error().message));
  CHECK(cubin);
}

TEST_CASE("a group reading a buffer no kernel of the plan writes is skipped, named with it",
          "[gpu]") {
  // The MoE router's normalisation divides by the sum of its top-k weights, a sum over k that
  // Inductor computes inline where it divides (no kernel stores it): the group computes it too.
  const auto f = test::sample_fusion("corpus/hand_moe_topk_train", fusion::Mode::default_mode);
  const auto s = gpu::plan_steps(f.post_grad, f.ours, {}, false);
  for (const auto& skip : s.skipped) {
    INFO(skip.why);
    CHECK(skip.why.find("which no kernel of the plan writes") == std::string::npos);
  }
  // Without the group that writes the top-k's weights, their readers would read uninitialised
  // memory: each is skipped and names what it lacks.
  fusion::FusionPlan without = f.ours;
  const auto topk =
      std::find_if(without.groups.begin(), without.groups.end(),
                   [](const fusion::KernelGroup& g) { return g.name == "aten.topk"; });
  REQUIRE(topk != without.groups.end());
  without.groups.erase(topk);
  const auto t = gpu::plan_steps(f.post_grad, without, {}, false);
  bool named = false;
  for (const auto& skip : t.skipped) {
    named = named || (skip.why.find("reads getitem") != std::string::npos &&
                      skip.why.find("which no kernel of the plan writes") != std::string::npos);
  }
  CHECK(named);
  CHECK(t.ran_ops < s.ran_ops);
}

TEST_CASE("a convolution's backward runs on cuDNN, computing only the gradients the graph takes",
          "[gpu]") {
  // ViT training: the patch embedding's backward. Its input is the image and Inductor sums the
  // bias's gradient itself (output_mask [False, True, False]): the weight's gradient only.
  auto log = trace::read_trace(test::sample("corpus/tv_vit_small_train_bf16"));
  REQUIRE(log);
  const auto f = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  REQUIRE(f.size() == 2);
  const auto s = gpu::plan_steps(f.back().post_grad, f.back().ours, {}, false);
  const gpu::StepPlan* conv = nullptr;
  for (const auto& step : s.steps) {
    if (step.kind == gpu::StepKind::conv_backward) conv = &step;
  }
  REQUIRE(conv != nullptr);
  const auto& b = *conv->conv_backward;
  CHECK(!b.grad_x);
  REQUIRE(b.grad_w);
  CHECK(!b.grad_bias);
  CHECK(b.conv.w_sizes == std::vector<std::int64_t>{384, 3, 16, 16});
  CHECK(b.conv.out_sizes == std::vector<std::int64_t>{2, 384, 14, 14});
  CHECK(b.conv.stride == std::vector<int>{16, 16});
  CHECK(conv->writes == std::vector<graph::NodeId>{*b.grad_w});
  for (const auto& skip : s.skipped)
    CHECK(skip.why.find("convolution_backward") == std::string::npos);
}

TEST_CASE("a fused index_put's self is copied once, before its values are scattered", "[gpu]") {
  // MoE top-k and T5 training's backwards: Inductor's kernel for clone(self) holds the index_put
  // among its origins and the planner orders it after the Scatter; only the runtime's copy right
  // before the Scatter's group runs.
  std::size_t scatters = 0;
  for (const std::string name : {"hand_moe_topk_train", "hf_t5_train_bf16"}) {
    const std::string path = test::sample("corpus/" + name);
    if (!std::filesystem::exists(path)) {
      WARN("sample_graphs/corpus/ is absent from this checkout");
      return;
    }
    auto log = trace::read_trace(path);
    REQUIRE(log);
    for (const auto& f : fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode)) {
      const auto s = gpu::plan_steps(f.post_grad, f.ours, f.hints, false);
      for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
        if (ops::op_base_name(f.post_grad.node(n).target) != "index_put") continue;
        std::vector<std::size_t> writers;
        for (std::size_t i = 0; i < s.steps.size(); ++i) {
          const auto& w = s.steps[i].writes;
          if (std::find(w.begin(), w.end(), n) != w.end()) writers.push_back(i);
        }
        INFO(f.where << " " << f.post_grad.node(n).name);
        // The copy of self, then the Scatter; nothing writes the buffer after the values landed.
        CHECK(writers.size() == 2);
        ++scatters;
      }
    }
  }
  CHECK(scatters >= 3);
}

TEST_CASE("a part a fused group computes lands in the slices of the cats it holds (DenseNet)",
          "[gpu]") {
  // The transition's pooled features open every later cat of the block; the group that pools
  // them stores the pool's buffer and, by the cat copy the runtime adds, each held cat's slice.
  const auto planned = corpus_default_plan("tv_densenet121");
  if (!planned) return;
  const auto& f = planned->first;
  const auto& s = planned->second;
  std::size_t checked = 0;
  for (graph::NodeId c = 0; c < f.post_grad.size(); ++c) {
    const graph::Node& cat = f.post_grad.node(c);
    if (ops::op_base_name(cat.target) != "cat" || cat.args.empty()) continue;
    const auto items = cat.args[0].items();
    if (items.empty() || !items.front().is_node()) continue;
    const graph::NodeId first = items.front().as_node();
    if (ops::op_base_name(f.post_grad.node(first).target) != "avg_pool2d") continue;
    // Some step writes this cat holding the pool: the pool's slice is filled.
    const bool filled = std::any_of(s.steps.begin(), s.steps.end(), [&](const gpu::StepPlan& st) {
      const bool writes = std::find(st.writes.begin(), st.writes.end(), c) != st.writes.end();
      const bool reads_or_computes =
          std::find(st.nodes.begin(), st.nodes.end(), first) != st.nodes.end() ||
          std::find(st.reads.begin(), st.reads.end(), first) != st.reads.end();
      return writes && reads_or_computes;
    });
    INFO(cat.name);
    CHECK(filled);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("a convolution run without the bias its epilogue adds writes its value in part",
          "[gpu]") {
  // The UNet's convolutions: Inductor casts and adds each bias in the next pointwise kernel, so
  // what the library call stores is not the node's value and is not compared with eager's.
  const auto planned = corpus_default_plan("hand_unet_train_cl_bf16");
  if (!planned) return;
  const auto& s = planned->second;
  std::size_t partial = 0;
  for (const gpu::StepPlan& step : s.steps) {
    for (const graph::NodeId n : step.partial_writes) {
      ++partial;
      CHECK(step.kind == gpu::StepKind::conv);
      REQUIRE(step.conv);
      CHECK_FALSE(step.conv->bias);
      CHECK(std::find(step.writes.begin(), step.writes.end(), n) != step.writes.end());
    }
  }
  CHECK(partial >= 1);
}

TEST_CASE("bf16 attention takes the tensor-core form unless it is switched off", "[gpu]") {
  const auto attention_forms = [] {
    std::vector<bool> forms;
    const auto p = corpus_default_plan("hf_llama_train_bf16");
    if (!p) return forms;
    for (const auto& s : p->second.steps) {
      if (s.kind != gpu::StepKind::attention) continue;
      forms.push_back(s.attention->tensor_cores);
      CHECK(s.name == (s.attention->tensor_cores ? "fxscope_attention on tensor cores"
                                                 : "fxscope_attention"));
    }
    return forms;
  };
  ::setenv("FXSCOPE_ATTENTION_TENSOR_CORES", "0", 1);
  const auto off = attention_forms();
  ::unsetenv("FXSCOPE_ATTENTION_TENSOR_CORES");
  const auto on = attention_forms();
  if (off.empty()) return;  // the corpus is absent
  CHECK(off.size() == 2);   // one attention a layer
  CHECK(std::none_of(off.begin(), off.end(), [](bool t) { return t; }));
  CHECK(on.size() == off.size());
  CHECK(std::all_of(on.begin(), on.end(), [](bool t) { return t; }));
}
