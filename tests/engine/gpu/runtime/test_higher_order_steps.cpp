// Higher-order ops in a graph the engine plans: torch.cond is a step that runs the branch its
// predicate picks, flex attention's forward a step that runs its math graph; an op with no runtime
// (a user's Triton kernel, flex attention's templates) is a group left out with its reason, and the
// groups that do not depend on it still run.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "fxscope/fusion/cuda_graph_check.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/flex_math_graph.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/trace/trace_log.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

const std::string kCondHead =
    "class GraphModule(torch.nn.Module):\n"
    "    def forward(self, x: \"f32[64][1]cuda:0\", p: \"b8[][]cuda:0\"):\n"
    "        a: \"f32[64][1]cuda:0\" = torch.ops.aten.relu.default(x)\n"
    "        true_graph_0 = self.true_graph_0\n"
    "        false_graph_0 = self.false_graph_0\n"
    "        cond = torch.ops.higher_order.cond(p, true_graph_0, false_graph_0, (a,))\n"
    "        c: \"f32[64][1]cuda:0\" = cond[0]\n"
    "        d: \"f32[64][1]cuda:0\" = torch.ops.aten.mul.Tensor(c, 2)\n"
    "        e: \"f32[64][1]cuda:0\" = torch.ops.aten.sin.default(x)\n"
    "        return (d, e)\n";

const std::string kCondBranches =
    "    class true_graph_0(torch.nn.Module):\n"
    "        def forward(self, arg0_1: \"f32[64][1]cuda:0\"):\n"
    "            t: \"f32[64][1]cuda:0\" = torch.ops.aten.exp.default(arg0_1)\n"
    "            return (t,)\n"
    "\n"
    "    class false_graph_0(torch.nn.Module):\n"
    "        def forward(self, arg0_1: \"f32[64][1]cuda:0\"):\n"
    "            f: \"f32[64][1]cuda:0\" = torch.ops.aten.neg.default(arg0_1)\n"
    "            g: \"f32[64][1]cuda:0\" = torch.ops.aten.add.Tensor(f, 1)\n"
    "            return (g,)\n";

// The step of PLANNED that runs torch.cond, or nullptr.
const gpu::StepPlan* subgraph_step_of(const gpu::PlannedSteps& planned) {
  const auto it =
      std::find_if(planned.steps.begin(), planned.steps.end(),
                   [](const gpu::StepPlan& s) { return s.kind == gpu::StepKind::subgraphs; });
  return it == planned.steps.end() ? nullptr : &*it;
}

// F's plan in MODE as a run plans its steps.
gpu::PlannedSteps planned(const fusion::GraphFusion& f, fusion::Mode mode) {
  return gpu::plan_steps(f.post_grad, f.ours, {}, mode == fusion::Mode::max_autotune, 1);
}

// flex attention's score subgraph when the call passes no score_mod: the score itself.
const std::string kIdentityScore =
    "    class sdpa_score0(torch.nn.Module):\n"
    "        def forward(self, arg0_1: \"bf16[][]cuda:0\", arg1_1: \"i32[][]cuda:0\", "
    "arg2_1: \"i32[][]cuda:0\", arg3_1: \"i32[][]cuda:0\", arg4_1: \"i32[][]cuda:0\"):\n"
    "            return arg0_1\n"
    "\n";

// The subgraph step of STEPS, which must plan every op.
const gpu::StepPlan& fully_planned_call(const gpu::PlannedSteps& steps) {
  INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
  CHECK(steps.skipped.empty());
  CHECK(steps.ran_ops == steps.ops);
  const gpu::StepPlan* s = subgraph_step_of(steps);
  REQUIRE(s != nullptr);
  return *s;
}

}  // namespace

TEST_CASE("torch.cond runs as one step: the predicate, then the steps of either branch", "[gpu]") {
  const graph::Graph g = graph::parse_fx_readable(kCondHead + "\n" + kCondBranches, "cond").graph;
  REQUIRE(g.subgraphs().size() == 2);
  const graph::NodeId c = *g.find("c");
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const fusion::FusionPlan plan = fusion::plan(g, mode);
    const auto steps = gpu::plan_steps(g, plan, {}, mode == fusion::Mode::max_autotune, 1);
    const gpu::StepPlan* b = &fully_planned_call(steps);
    REQUIRE(b->call);
    CHECK(b->call->predicate == g.find("p"));
    CHECK(b->call->operands == std::vector<graph::NodeId>{*g.find("a")});
    REQUIRE(b->call->results.size() == 1);
    CHECK(b->call->results[0] == c);
    CHECK(b->writes == std::vector<graph::NodeId>{c});
    REQUIRE(b->call->graphs.size() == 2);
    CHECK(b->call->graphs[0].name == "true_graph_0");
    CHECK(b->call->graphs[1].name == "false_graph_0");
    // exp in one kernel; neg and add fused in the compiled modes, two launches in eager.
    CHECK(b->call->graphs[0].steps->steps.size() == 1);
    CHECK(b->call->graphs[1].steps->steps.size() == (mode == fusion::Mode::eager ? 2u : 1u));
    // The branches' ops count as the plan's: 1 (exp) + 2 (neg, add), and the cond itself.
    CHECK(steps.ops >= 3 + 1 + 2);
    // It runs after what writes its operand and before what reads its result.
    const auto at = static_cast<std::size_t>(b - steps.steps.data());
    for (std::size_t i = 0; i < steps.steps.size(); ++i) {
      const auto& s = steps.steps[i];
      if (std::find(s.reads.begin(), s.reads.end(), c) != s.reads.end()) CHECK(i > at);
      if (std::find(s.writes.begin(), s.writes.end(), *g.find("a")) != s.writes.end()) {
        CHECK(i < at);
      }
    }
  }
}

TEST_CASE("a torch.cond on GPU tensors stops a CUDA graph, as Inductor's lowering does", "[gpu]") {
  const graph::Graph g = graph::parse_fx_readable(kCondHead + "\n" + kCondBranches, "cond").graph;
  const fusion::CudaGraphVerdict v = fusion::check_cuda_graphs(g);
  CHECK_FALSE(v.usable);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons.front().find("torch.cond cond") != std::string::npos);
}

TEST_CASE("a torch.cond whose branches the log lacks is left out by name, the rest still run",
          "[gpu]") {
  const graph::Graph g = graph::parse_fx_readable(kCondHead, "cond").graph;
  REQUIRE(g.find("cond"));
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const fusion::FusionPlan plan = fusion::plan(g, mode);
    const auto steps = gpu::plan_steps(g, plan, {}, mode == fusion::Mode::max_autotune, 1);
    bool named = false;
    for (const auto& s : steps.skipped) {
      named = named || s.why.find("true_graph_0 has no graph in the log") != std::string::npos;
    }
    INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
    CHECK(named);
    CHECK(steps.ran_ops < steps.ops);
    CHECK(steps.ran_ops > 0);  // the relu and the sin do not depend on the cond
  }
}

TEST_CASE("the corpus's torch.cond runs in every mode with every op planned", "[gpu][corpus]") {
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const fusion::GraphFusion f = test::sample_fusion("corpus/hand_cond_branch", mode);
    const auto steps = planned(f, mode);
    const gpu::StepPlan* b = &fully_planned_call(steps);
    REQUIRE(b->call->predicate);
    CHECK(f.post_grad.node(*b->call->predicate).name == "gt");
    // Each branch: its GEMM and the pointwise tail (the bias add Inductor may fold in).
    for (const auto& br : b->call->graphs) CHECK(br.steps->steps.size() >= 2);
    if (mode != fusion::Mode::default_mode && mode != fusion::Mode::eager) {
      CHECK_FALSE(f.ours.cuda_graphs.usable);
    }
  }
}

TEST_CASE("a user's Triton kernel in the graph is left out by name, the rest still run", "[gpu]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[64][1]cuda:0\", y: \"f32[64][1]cuda:0\"):\n"
      "        a: \"f32[64][1]cuda:0\" = torch.ops.aten.relu.default(x)\n"
      "        empty: \"f32[64][1]cuda:0\" = torch.ops.aten.empty.memory_format([64], "
      "dtype = torch.float32, device = device(type='cuda', index=0), pin_memory = False)\n"
      "        triton_kernel_wrapper_functional_proxy = "
      "torch.ops.higher_order.triton_kernel_wrapper_functional(kernel_idx = 0, "
      "constant_args_idx = 0, grid = [(1, 1, 1)], tma_descriptor_metadata = {}, "
      "kwargs = {'x_ptr': a, 'y_ptr': y, 'out_ptr': empty}, tensors_to_clone = ['out_ptr']);  "
      "empty = None\n"
      "        getitem: \"f32[64][1]cuda:0\" = triton_kernel_wrapper_functional_proxy['out_ptr']\n"
      "        b: \"f32[64][1]cuda:0\" = torch.ops.aten.mul.Tensor(getitem, 2)\n"
      "        c: \"f32[64][1]cuda:0\" = torch.ops.aten.cos.default(y)\n"
      "        return (b, c)\n";
  const auto parsed = graph::parse_fx_readable(code, "user_triton");
  const graph::Graph& g = parsed.graph;
  REQUIRE(g.find("triton_kernel_wrapper_functional_proxy"));
  const fusion::FusionPlan plan = fusion::plan(g, fusion::Mode::default_mode);
  const auto steps = gpu::plan_steps(g, plan, {}, false, 1);
  bool named = false;
  for (const auto& s : steps.skipped) {
    named = named || s.why.find("triton_kernel_wrapper") != std::string::npos;
  }
  INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
  CHECK(named);
  CHECK(steps.ran_ops > 0);
  CHECK(steps.ran_ops < steps.ops);
}

TEST_CASE(
    "flex attention's forward is a math graph: scores in f32, its score_mod inlined, the "
    "attention in the op's own layout",
    "[gpu][corpus]") {
  const fusion::GraphFusion f =
      test::sample_fusion("corpus/hand_flex_attention_train_bf16", fusion::Mode::default_mode);
  const graph::Graph& g = f.post_grad;
  std::optional<graph::NodeId> flex;
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    if (ops::op_key(g.node(n).target) == "higher_order.flex_attention") flex = n;
  }
  REQUIRE(flex);
  const auto math = gpu::flex_attention_math(g, *flex);
  INFO((math ? std::string() : math.error().message));
  REQUIRE(math);
  CHECK(gpu::graph_inputs(*math).size() == 3);  // q, k, v: the ALiBi score_mod captures nothing
  const auto outs = gpu::output_nodes(*math);
  REQUIRE(outs.size() == 3);
  // The attention in getitem 0's layout (Q's stride order: [B, M, H, D] in memory).
  const graph::TensorMeta& attention = *math->node(outs[0]).meta;
  CHECK(attention == *g.node(*g.find("getitem_7")).meta);
  CHECK(math->node(outs[1]).meta->dtype == "f32");
  // The score_mod's ops, applied over [2, 4, 256, 256].
  std::size_t full_size_ops = 0;
  std::size_t gemms = 0;
  for (const graph::Node& n : math->nodes()) {
    if (!n.is_op() || !n.meta) continue;
    if (n.meta->rank() == 4 && n.meta->sizes[3].value == 256 && n.meta->sizes[2].value == 256) {
      ++full_size_ops;
    }
    if (ops::op_key(n.target) == "aten.bmm") ++gemms;
  }
  CHECK(gemms == 2);
  CHECK(full_size_ops >= 8);  // scale, ALiBi's sub, the causal where, the mask, exp, softmax
}

TEST_CASE("the corpus's flex attention forward runs in every mode with every op planned",
          "[gpu][corpus]") {
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const fusion::GraphFusion f =
        test::sample_fusion("corpus/hand_flex_attention_train_bf16", mode);
    const auto steps = planned(f, mode);
    const gpu::StepPlan* s = &fully_planned_call(steps);
    CHECK_FALSE(s->call->predicate);
    REQUIRE(s->call->graphs.size() == 1);
    CHECK(s->call->graphs[0].steps->steps.size() >= 15);
    CHECK(s->call->operands.size() == 3);
    // The attention and its log-sum-exp are taken by the graph (getitem 0 and 1).
    REQUIRE(s->call->results.size() == 3);
    CHECK(s->call->results[0]);
    CHECK(s->call->results[1]);
  }
}

TEST_CASE(
    "the corpus's flex attention backward runs as its math in each compiled mode, once per op",
    "[gpu][corpus]") {
  auto log = trace::read_trace(test::sample("corpus/hand_flex_attention_train_bf16"));
  REQUIRE(log);
  for (const fusion::Mode mode : fusion::kAllModes) {
    INFO(fusion::to_string(mode));
    const auto fusions = fusion::fuse_unit(log->units().front(), mode);
    // fuse_unit gives eager the forward alone; a run plans eager's backward from the AOT
    // backward graph as the other modes'.
    if (mode == fusion::Mode::eager) continue;
    REQUIRE(fusions.size() == 2);
    const fusion::GraphFusion& f = fusions[1];
    const auto steps = planned(f, mode);
    const gpu::StepPlan* s = &fully_planned_call(steps);
    // Inductor's two launches of the backward (the delta pass, the template): one math step.
    std::size_t calls = 0;
    for (const auto& step : steps.steps) {
      calls += step.kind == gpu::StepKind::subgraphs ? 1u : 0u;
    }
    CHECK(calls == 1);
    // q, k, v, the attention, its log-sum-exp and its gradient (no log-sum-exp gradient).
    CHECK(s->call->operands.size() == 6);
    REQUIRE(s->call->results.size() == 3);
    const graph::Graph& math = *s->call->graphs[0].graph;
    const auto outs = gpu::output_nodes(math);
    REQUIRE(outs.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
      REQUIRE(s->call->results[k]);
      // Each gradient in its getitem's layout and dtype.
      CHECK(*math.node(outs[k]).meta == *f.post_grad.node(*s->call->results[k]).meta);
    }
    // Four GEMMs besides the two of the scores again: dV, dP, dQ, dK.
    std::size_t gemms = 0;
    for (const graph::Node& n : math.nodes())
      gemms += ops::op_key(n.target) == "aten.bmm" ? 1u : 0u;
    CHECK(gemms == 5);
  }
}

TEST_CASE("a document mask reads its captured ids at the query and key indices", "[gpu]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, q: \"bf16[1, 2, 128, 64][16384, 8192, 64, 1]cuda:0\", "
      "k: \"bf16[1, 2, 128, 64][16384, 8192, 64, 1]cuda:0\", "
      "v: \"bf16[1, 2, 128, 64][16384, 8192, 64, 1]cuda:0\", doc: \"i32[128][1]cuda:0\", "
      "n: \"i32[1, 1, 1][1, 1, 1]cuda:0\", i: \"i32[1, 1, 1, 1][1, 1, 1, 1]cuda:0\"):\n"
      "        sdpa_score0 = self.sdpa_score0\n"
      "        sdpa_mask0 = self.sdpa_mask0\n"
      "        flex_attention = torch.ops.higher_order.flex_attention(q, k, v, sdpa_score0, "
      "(128, 128, n, i, None, None, n, i, None, None, 128, 128, sdpa_mask0), 0.125, "
      "{'OUTPUT_LOGSUMEXP': True}, (), (doc,))\n"
      "        getitem: \"bf16[1, 2, 128, 64][16384, 8192, 64, 1]cuda:0\" = flex_attention[0]\n"
      "        getitem_1: \"f32[1, 2, 128][256, 128, 1]cuda:0\" = flex_attention[1]\n"
      "        return (getitem, getitem_1)\n"
      "\n" +
      kIdentityScore +
      "    class sdpa_mask0(torch.nn.Module):\n"
      "        def forward(self, arg0_1: \"i32[][]cuda:0\", arg1_1: \"i32[][]cuda:0\", "
      "arg2_1: \"i32[][]cuda:0\", arg3_1: \"i32[][]cuda:0\", arg4_1: \"i32[128][1]cuda:0\"):\n"
      "            index: \"i32[][]cuda:0\" = torch.ops.aten.index.Tensor(arg4_1, [arg2_1])\n"
      "            index_1: \"i32[][]cuda:0\" = torch.ops.aten.index.Tensor(arg4_1, [arg3_1])\n"
      "            eq: \"b8[][]cuda:0\" = torch.ops.aten.eq.Tensor(index, index_1)\n"
      "            return eq\n";
  const graph::Graph g = graph::parse_fx_readable(code, "document mask").graph;
  REQUIRE(g.subgraphs().size() == 2);
  const auto math = gpu::flex_attention_math(g, *g.find("flex_attention"));
  INFO((math ? std::string() : math.error().message));
  REQUIRE(math);
  // q, k, v and the mask's captured ids.
  CHECK(gpu::graph_inputs(*math).size() == 4);
  std::vector<std::vector<std::int64_t>> gathers;
  std::optional<graph::TensorMeta> same_doc;
  for (const graph::Node& n : math->nodes()) {
    if (ops::op_key(n.target) == "aten.index") {
      std::vector<std::int64_t> sizes;
      for (const auto& d : n.meta->sizes) sizes.push_back(d.value);
      gathers.push_back(sizes);
    }
    if (!same_doc && ops::op_key(n.target) == "aten.eq" && n.meta->rank() == 4) {
      same_doc = n.meta;
    }
  }
  // ids[q_idx] along the queries, ids[kv_idx] along the keys, compared over every pair.
  CHECK(gathers == std::vector<std::vector<std::int64_t>>{{1, 1, 128, 1}, {1, 1, 1, 128}});
  REQUIRE(same_doc);
  CHECK(same_doc->sizes[2].value == 128);
  CHECK(same_doc->sizes[3].value == 128);
  // Planned op by op, every step can run.
  const auto steps = gpu::plan_steps(*math, fusion::plan(*math, fusion::Mode::eager), {}, false, 1);
  INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
  CHECK(steps.skipped.empty());
}

TEST_CASE("grouped-query flex attention repeats each key and value head for its query heads",
          "[gpu]") {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, q: \"bf16[2, 8, 64, 32][16384, 2048, 32, 1]cuda:0\", "
      "k: \"bf16[2, 2, 64, 32][4096, 2048, 32, 1]cuda:0\", "
      "v: \"bf16[2, 2, 64, 32][4096, 2048, 32, 1]cuda:0\", n: \"i32[1, 1, 1][1, 1, 1]cuda:0\", "
      "i: \"i32[1, 1, 1, 1][1, 1, 1, 1]cuda:0\"):\n"
      "        sdpa_score0 = self.sdpa_score0\n"
      "        sdpa_mask0 = self.sdpa_mask0\n"
      "        flex_attention = torch.ops.higher_order.flex_attention(q, k, v, sdpa_score0, "
      "(64, 64, n, i, None, None, n, i, None, None, 128, 128, sdpa_mask0), 0.125, "
      "{'OUTPUT_LOGSUMEXP': True}, (), ())\n"
      "        getitem: \"bf16[2, 8, 64, 32][16384, 2048, 32, 1]cuda:0\" = flex_attention[0]\n"
      "        return (getitem,)\n"
      "\n" +
      kIdentityScore +
      "    class sdpa_mask0(torch.nn.Module):\n"
      "        def forward(self, arg0_1: \"i32[][]cuda:0\", arg1_1: \"i32[][]cuda:0\", "
      "arg2_1: \"i32[][]cuda:0\", arg3_1: \"i32[][]cuda:0\"):\n"
      "            ge: \"b8[][]cuda:0\" = torch.ops.aten.ge.Tensor(arg2_1, arg3_1)\n"
      "            return ge\n";
  const graph::Graph g = graph::parse_fx_readable(code, "gqa").graph;
  const auto math = gpu::flex_attention_math(g, *g.find("flex_attention"));
  INFO((math ? std::string() : math.error().message));
  REQUIRE(math);
  std::size_t expands = 0;
  std::size_t scores_of_8_heads = 0;
  for (const graph::Node& n : math->nodes()) {
    if (ops::op_key(n.target) == "aten.expand") {
      ++expands;
      CHECK(n.meta->sizes[2].value == 4);  // 8 query heads over 2 key heads
      CHECK(n.meta->strides[2].value == 0);
    }
    if (ops::op_key(n.target) == "aten.bmm" && n.meta->sizes[0].value == 2 * 8) {
      ++scores_of_8_heads;
    }
  }
  CHECK(expands == 2);            // the key and the value
  CHECK(scores_of_8_heads == 2);  // Q K^T and P V over every query head
  const auto steps = gpu::plan_steps(*math, fusion::plan(*math, fusion::Mode::eager), {}, false, 1);
  INFO((steps.skipped.empty() ? std::string() : steps.skipped.front().why));
  CHECK(steps.skipped.empty());
}
