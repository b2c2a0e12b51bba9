// max-autotune's cuBLASLt epilogue candidates: offered where the kernel after a GEMM is exactly
// act(product + bias) for an activation cuBLASLt has, refused with the reason elsewhere (the
// samples' GELU is the erf form and adds a residual).

#include <catch2/catch.hpp>

#include <map>

#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/trace_log.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

// A [32, 64] x [64, 128] product, then BODY (FX lines computing `out` from `mm` and the bias
// `b`); the graph returns `out`.
graph::Graph gemm_then(const std::string& body) {
  const std::string code =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32[32, 64][64, 1]cuda:0\", w: \"f32[64, 128][128, 1]cuda:0\", "
      "b: \"f32[128][1]cuda:0\", r: \"f32[32, 128][128, 1]cuda:0\"):\n"
      "        mm: \"f32[32, 128][128, 1]cuda:0\" = torch.ops.aten.mm.default(x, w)\n" +
      body + "        return (out,)\n";
  return graph::parse_fx_readable(code, "epilogue test").graph;
}

std::string op(const std::string& name, const std::string& call) {
  return "        " + name + ": \"f32[32, 128][128, 1]cuda:0\" = torch.ops.aten." + call + "\n";
}

// The GEMM step of GRAPH planned for max-autotune (the first step), with its offer or note.
gpu::StepPlan gemm_step(const graph::Graph& g) {
  const auto plan = fusion::plan(g, fusion::Mode::max_autotune);
  const auto s = gpu::plan_steps(g, plan, {}, true);
  INFO((s.skipped.empty() ? "" : s.skipped.front().why));
  REQUIRE(s.skipped.empty());
  REQUIRE(s.steps.size() == 2);
  REQUIRE(s.steps[0].kind == gpu::StepKind::gemm);
  return s.steps[0];
}

}  // namespace

TEST_CASE("bias + relu after mm rides in cuBLASLt's epilogue", "[gpu][epilogue]") {
  const auto g = gemm_then(op("add", "add.Tensor(mm, b)") + op("out", "relu.default(add)"));
  const auto s = gemm_step(g);
  REQUIRE(s.fused_epilogue);
  CHECK(s.fused_epilogue->what == "bias + relu");
  CHECK(s.fused_epilogue->fused.epilogue == gpu::GemmEpilogue::relu);
  REQUIRE(s.fused_epilogue->fused.bias_vector);
  CHECK(g.node(*s.fused_epilogue->fused.bias_vector).name == "b");
  CHECK(g.node(s.fused_epilogue->out).name == "out");
  CHECK(s.fused_epilogue->fused.out.node == s.fused_epilogue->out);
  // The fused GEMM writes `out` at this step, so its buffer must live from here.
  CHECK(s.writes.back() == s.fused_epilogue->out);
}

TEST_CASE("a tanh GELU in Inductor's decomposition is matched, the erf GELU refused",
          "[gpu][epilogue]") {
  const std::string biased = op("h", "add.Tensor(b, mm)");
  const auto tanh = gemm_then(
      biased + op("cube", "pow.Tensor_Scalar(h, 3)") + op("k", "mul.Tensor(cube, 0.044715)") +
      op("inner", "add.Tensor(h, k)") + op("beta", "mul.Tensor(inner, 0.7978845608028654)") +
      op("th", "tanh.default(beta)") + op("one", "add.Tensor(th, 1)") +
      op("half", "mul.Tensor(h, 0.5)") + op("out", "mul.Tensor(half, one)"));
  const auto t = gemm_step(tanh);
  REQUIRE(t.fused_epilogue);
  CHECK(t.fused_epilogue->what == "bias + gelu (tanh)");
  CHECK(t.fused_epilogue->fused.epilogue == gpu::GemmEpilogue::gelu_tanh);

  const auto erf =
      gemm_then(biased + op("half", "mul.Tensor(h, 0.5)") +
                op("scaled", "mul.Tensor(h, 0.7071067811865476)") + op("e", "erf.default(scaled)") +
                op("one", "add.Tensor(e, 1)") + op("out", "mul.Tensor(half, one)"));
  const auto e = gemm_step(erf);
  CHECK_FALSE(e.fused_epilogue);
  CHECK_THAT(e.epilogue_note, Catch::Contains("erf form"));
}

TEST_CASE("a kernel that also reads a residual is not an epilogue", "[gpu][epilogue]") {
  const auto g = gemm_then(op("add", "add.Tensor(mm, b)") + op("act", "relu.default(add)") +
                           op("out", "add.Tensor(r, act)"));
  const auto s = gemm_step(g);
  CHECK_FALSE(s.fused_epilogue);
  CHECK(s.epilogue_note == "reads r besides the product and one bias");
}

TEST_CASE("the MLP samples' GELU + residual kernels keep GEMM + generated kernel",
          "[gpu][epilogue]") {
  for (const std::string name : {"max_autotune_mlp", "residual_mlp"}) {
    const auto f = test::sample_fusion(name, fusion::Mode::max_autotune);
    const auto s = gpu::plan_steps(f.post_grad, f.ours, {}, true);
    std::size_t notes = 0;
    for (const auto& step : s.steps) {
      CHECK_FALSE(step.fused_epilogue);
      if (step.epilogue_note.empty()) continue;
      ++notes;
      INFO(name << ": " << step.epilogue_note);
      CHECK(step.epilogue_note == "reads arg2_1 besides the product and one bias");
    }
    CHECK(notes == 1);  // the mm before bias + GELU + residual; the addmm feeds a GEMM
  }
}

TEST_CASE("graph_breaks' GEMM kernels are named with why none is an epilogue", "[gpu][epilogue]") {
  auto log = trace::read_trace(test::sample("graph_breaks"));
  REQUIRE(log);
  std::map<std::string, std::string> notes;  // unit -> the note of its mm
  for (const auto& unit : log->units()) {
    for (const auto& f : fusion::fuse_unit(unit, fusion::Mode::max_autotune)) {
      for (const auto& step : gpu::plan_steps(f.post_grad, f.ours, {}, true).steps) {
        CHECK_FALSE(step.fused_epilogue);
        if (!step.epilogue_note.empty()) notes[unit.id.str()] = step.epilogue_note;
      }
    }
  }
  // relu(lin1(x)) also feeds h.sum(): two buffers; lin2(h) + idx.shape[0] adds a constant.
  CHECK(notes["0/0"] == "the kernel writes 2 buffers; an epilogue writes one");
  CHECK_THAT(notes["3/0"], Catch::StartsWith("the kernel is not act(product + bias)"));
}
