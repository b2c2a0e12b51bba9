// Foreach optimizer steps as Inductor runs them: each foreach op's elements are Pointwise values
// (lowering.make_foreach_pointwise), realized together as one list when something outside the
// foreach ops reads them; the lists fuse pairwise into one ForeachKernelSchedulerNode, which takes
// the copies into the optimizer's state as consumers, and its sub-kernels launch as combo kernels
// (triton_for) cut at config.combo_kernel_max_num_args reads and writes. Checked on the real
// corpus units of a compiled AdamW step and of a ResNet-18 SGD step against Inductor's own
// kernels.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/fusion/combo_kernels.h"
#include "fxscope/fusion/fusion_scheduler.h"
#include "fxscope/fusion/lowering.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::vector<fusion::GraphFusion> unit_fusion(const std::string& sample, const std::string& id,
                                             const fusion::PlanOptions& options = {}) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  for (const auto& unit : log->units()) {
    if (unit.id.without_attempt().str() == id) {
      return fusion::fuse_unit(unit, fusion::Mode::default_mode, options);
    }
  }
  FAIL("no unit " << id << " in " << sample);
  return {};
}

std::size_t combo_groups(const fusion::FusionPlan& plan) {
  return static_cast<std::size_t>(std::count_if(
      plan.groups.begin(), plan.groups.end(),
      [](const fusion::KernelGroup& g) { return g.kind == fusion::GroupKind::combo; }));
}

// The combo launches of a post-grad graph, as the planner forms them.
std::vector<fusion::Launch> combo_launches(const graph::Graph& g,
                                           const fusion::PlanOptions& options,
                                           fusion::LoweredGraph& lowered) {
  lowered = fusion::lower_graph(g, options, false);
  std::vector<fusion::Launch> combos;
  for (auto& l : fusion::form_launches(lowered, fusion::fuse_nodes(lowered, options), options)) {
    if (l.combo) combos.push_back(std::move(l));
  }
  return combos;
}

bool have_corpus() {
  if (std::filesystem::exists(test::sample("corpus"))) return true;
  WARN("sample_graphs/corpus/ is absent from this checkout");
  return false;
}

}  // namespace

TEST_CASE("a foreach optimizer step launches Inductor's combo kernels", "[fusion][foreach]") {
  if (!have_corpus()) return;
  struct Case {
    const char* sample;
    const char* unit;
    std::size_t combos;  // Inductor's triton_for kernels
  };
  for (const Case c : {Case{"corpus/hand_mlp_train_compiled_adamw", "3/0", 2},
                       Case{"corpus/tv_resnet18_train_bf16", "3/1", 2},
                       Case{"corpus/tv_resnet18_train_bf16", "3/0", 1}}) {
    INFO(c.sample << " " << c.unit);
    const auto fusions = unit_fusion(c.sample, c.unit);
    REQUIRE(fusions.size() == 1);
    const fusion::GraphFusion& f = fusions.front();
    CHECK(f.ours.launches() == f.inductor.launches());
    CHECK(combo_groups(f.inductor) == c.combos);
    CHECK(combo_groups(f.ours) == c.combos);
    CHECK(f.ours.unknown_ops.empty());
  }
}

TEST_CASE("an AdamW step: the step counts alone, the rest one combo kernel of 13-arg sub-kernels",
          "[fusion][foreach]") {
  if (!have_corpus()) return;
  const auto fusions = unit_fusion("corpus/hand_mlp_train_compiled_adamw", "3/0");
  REQUIRE(fusions.size() == 1);
  fusion::LoweredGraph lowered;
  const auto combos = combo_launches(fusions.front().post_grad, {}, lowered);
  REQUIRE(combos.size() == 2);
  // The steps (_foreach_add_ on four scalars) cannot join the parameters' sub-kernels (numel 1
  // against the parameters'): a foreach node of their own, one element each.
  CHECK(combos[0].subkernels.size() == 4);
  for (const auto& sub : combos[0].subkernels) CHECK(sub.size() == 1);
  // Inductor's header names the op of a foreach node whose sub-kernels are single nodes.
  REQUIRE(combos[0].named.size() == 1);
  CHECK(fusions.front().post_grad.node(combos[0].named.front()).name == "_foreach_add");
  // exp_avg (in place), exp_avg_sq and the parameters, with the copies into the state, per
  // parameter: 5 loads, 5 stores and 3 graph inputs stored into.
  CHECK(combos[1].subkernels.size() == 4);
  for (const auto& sub : combos[1].subkernels) CHECK(fusion::subkernel_args(lowered, sub) == 13);
  CHECK(combos[1].named.empty());
}

TEST_CASE("an SGD step with momentum over 62 tensors is cut in two at 250 arguments",
          "[fusion][foreach]") {
  if (!have_corpus()) return;
  const auto fusions = unit_fusion("corpus/tv_resnet18_train_bf16", "3/1");
  REQUIRE(fusions.size() == 1);
  const graph::Graph& g = fusions.front().post_grad;
  fusion::LoweredGraph lowered;
  const auto combos = combo_launches(g, {}, lowered);
  // Each sub-kernel loads the momentum buffer, the gradient and the parameter, stores the new
  // buffer, its copy into the state and the parameter, and stores into two graph inputs: 8,
  // so 31 fit in 250 (Inductor's kernels take 31 parameters each).
  REQUIRE(combos.size() == 2);
  for (const auto& combo : combos) {
    CHECK(combo.subkernels.size() == 31);
    for (const auto& sub : combo.subkernels) CHECK(fusion::subkernel_args(lowered, sub) == 8);
  }
  // The limit decides the cut: at 100 arguments, 12 sub-kernels a launch.
  fusion::PlanOptions tight;
  tight.combo_kernel_max_num_args = 100;
  CHECK(combo_launches(g, tight, lowered).size() == 6);
}

TEST_CASE("a foreach node takes one producer, the closest of the largest", "[fusion][foreach]") {
  if (!have_corpus()) return;
  // The first SGD step clones each gradient into its momentum buffer (graph outputs) and adds
  // them into the parameters in place. Once a clone has fused into the foreach node, the node's
  // read_to_node is empty and no other producer can join it: 61 clones stay kernels of their
  // own, and the one that fused is Inductor's (clone_57), so every kernel forms exactly.
  const auto fusions = unit_fusion("corpus/tv_resnet18_train_bf16", "3/0");
  REQUIRE(fusions.size() == 1);
  const fusion::GraphFusion& f = fusions.front();
  CHECK(f.agreement.exact_count() == f.agreement.kernels.size());
  CHECK(f.agreement.kernels.size() == 62);
}

TEST_CASE("a combo kernel naming no nodes is compared by the graph inputs its launch stores",
          "[fusion][foreach]") {
  if (!have_corpus()) return;
  // The SGD step's two combo kernels fuse their sub-kernels, so neither header nor provenance
  // names a node; their launches store into 31 parameters and 31 momentum buffers each.
  const auto fusions = unit_fusion("corpus/tv_resnet18_train_bf16", "3/1");
  REQUIRE(fusions.size() == 1);
  const fusion::GraphFusion& f = fusions.front();
  std::size_t unnamed = 0;
  for (const fusion::KernelGroup& theirs : f.inductor.groups) {
    if (theirs.kind != fusion::GroupKind::combo) continue;
    CHECK(theirs.nodes.empty());
    CHECK(theirs.stored_inputs.size() == 62);
    for (const graph::NodeId id : theirs.stored_inputs) {
      CHECK(f.post_grad.node(id).op == graph::OpKind::placeholder);
    }
    ++unnamed;
  }
  CHECK(unnamed == 2);
  CHECK(f.agreement.exact_count() == 2);
  // Cut elsewhere (12 sub-kernels a launch), the planned kernels update other parameters: no
  // kernel of Inductor's is matched by them.
  fusion::PlanOptions tight;
  tight.combo_kernel_max_num_args = 100;
  const auto cut = unit_fusion("corpus/tv_resnet18_train_bf16", "3/1", tight);
  REQUIRE(cut.size() == 1);
  CHECK(cut.front().agreement.exact_count() == 0);
}
