#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "fxscope/report/fuse_report.h"
#include "fxscope/report/fuse_report_json.h"
#include "fxscope/report/fuse_report_text.h"
#include "samples.h"

using namespace fxscope;

namespace {

report::FuseReport fuse(const std::string& sample, fusion::Mode mode,
                        const std::string& unit = "") {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log.ok());
  auto r = report::build_fuse_report(*log, mode, unit, *cost::find_device("H200"));
  REQUIRE(r.ok());
  return std::move(r).value();
}

const report::ModePrediction& predicted(const report::UnitFuseReport& u, fusion::Mode mode) {
  for (const auto& p : u.predicted) {
    if (p.mode == mode) return p;
  }
  FAIL("no prediction for " << fusion::to_string(mode));
  return u.predicted.front();
}

}  // namespace

TEST_CASE("residual MLP: GEMMs stay extern, bias + gelu + residual fuse into one kernel",
          "[fuse]") {
  const auto r = fuse("residual_mlp", fusion::Mode::default_mode);
  REQUIRE(r.units.size() == 1);
  const auto& u = r.units[0];
  REQUIRE(u.graphs.size() == 1);
  const auto& g = u.graphs[0];
  REQUIRE(g.fusion.ours.groups.size() == 3);
  CHECK(g.fusion.ours.groups[2].kind == fusion::GroupKind::pointwise);
  CHECK(g.fusion.ours.groups[2].nodes.size() == 8);
  CHECK(g.fusion.agreement.exact_count() == 1);
  // Each kernel is priced; the GEMMs are the GEMM class.
  REQUIRE(g.ours.kernels.size() == 3);
  CHECK(report::kernel_work(g.fusion.ours.groups[0], g.fusion.post_grad, g.fusion.ours.mode)
            .work_class == cost::WorkClass::gemm_conv);
  CHECK(g.ours.kernels[0].total_us > g.ours.kernels[2].total_us);
  // Traced back to what the user wrote: linear2's bias, gelu, the scaling and the residual add.
  const std::vector<std::string> user_ops = {"linear_1", "gelu", "mul", "add"};
  CHECK(g.dynamo_nodes[2] == user_ops);
}

TEST_CASE("every mode is predicted, and fusion pays most on a pointwise chain", "[fuse]") {
  const auto chain = fuse("pointwise_chain", fusion::Mode::default_mode).units.at(0);
  REQUIRE(chain.predicted.size() == 4);
  CHECK(predicted(chain, fusion::Mode::eager).speedup_over_eager == Approx(1.0));
  CHECK(predicted(chain, fusion::Mode::eager).launches > 12);
  CHECK(predicted(chain, fusion::Mode::default_mode).launches == 3);
  // Measured on an H200 (tests/data/runs/pointwise_chain_engine_h200.json): 3.5x of the engine's
  // kernel time. The chain's reduction is all ALU work (sin, tanh, sigmoid, exp before a
  // var_mean), priced at the pointwise class's issue rate (18.5 us against 23.9 measured).
  CHECK(predicted(chain, fusion::Mode::default_mode).speedup_over_eager > 3.0);
  CHECK(predicted(chain, fusion::Mode::reduce_overhead).cuda_graphs);

  // A GEMM-heavy block gains much less than the pointwise chain.
  const auto mlp = fuse("residual_mlp", fusion::Mode::default_mode).units.at(0);
  CHECK(predicted(mlp, fusion::Mode::default_mode).speedup_over_eager <
        predicted(chain, fusion::Mode::default_mode).speedup_over_eager);
}

TEST_CASE("dynamic shapes are named where CUDA graphs are wanted", "[fuse]") {
  const auto u = fuse("reduce_overhead_dynamic", fusion::Mode::reduce_overhead).units.at(0);
  const auto& ro = predicted(u, fusion::Mode::reduce_overhead);
  REQUIRE_FALSE(ro.cuda_graph_notes.empty());
  CHECK_THAT(ro.cuda_graph_notes[0], Catch::Contains("dynamic shapes"));
}

TEST_CASE("the fuse JSON has the fields the issue names", "[fuse]") {
  const auto j = report::to_json(fuse("resnet18", fusion::Mode::default_mode));
  CHECK(j["device"]["name"] == "H200");
  REQUIRE(j["units"].size() == 1);
  const auto& u = j["units"][0];
  CHECK(u["compile_id"] == "0/0");
  CHECK(u["mode"] == "default");
  REQUIRE(u["groups"].size() == 57);
  for (const char* key : {"name", "kind", "nodes", "bytes", "flops", "predicted_us"}) {
    CHECK(u["groups"][0].contains(key));
    CHECK(u["inductor_groups"][0].contains(key));
  }
  CHECK(u["agreement"][0]["exact_share"] == 1.0);
  CHECK(u["predicted"]["max-autotune"]["speedup"].get<double>() > 1.0);
}

TEST_CASE("an unknown unit id names the ids the log has", "[fuse]") {
  auto log = trace::read_trace(test::sample("graph_breaks"));
  REQUIRE(log.ok());
  const auto r = report::build_fuse_report(*log, fusion::Mode::default_mode, "9/9",
                                           *cost::find_device("A100"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("no compile unit 9/9"));
  CHECK_THAT(r.error().message, Catch::Contains("4/4"));
}

TEST_CASE("the text report shows kernels, agreement and modes", "[fuse]") {
  const auto text = report::to_text(fuse("residual_mlp", fusion::Mode::default_mode), 40);
  CHECK_THAT(text, Catch::Contains("extern_kernels.addmm"));
  CHECK_THAT(text, Catch::Contains("1 of 1 generated kernels formed exactly"));
  CHECK_THAT(text, Catch::Contains("reduce-overhead"));
}

TEST_CASE("a torch.cond's call costs its groups and its costlier branch, in every mode",
          "[report][corpus]") {
  const auto r = fuse("corpus/hand_cond_branch", fusion::Mode::default_mode);
  REQUIRE(r.units.size() == 1);
  const report::UnitFuseReport& u = r.units.front();
  REQUIRE(u.graphs.size() == 1);
  const fusion::FusionPlan& plan = u.graphs.front().fusion.ours;
  REQUIRE(plan.subgraphs.size() == 2);  // true_graph_0, false_graph_0
  // One branch runs per call: the groups plus the larger branch's launches, not both.
  std::size_t branch = 0;
  for (const auto& sp : plan.subgraphs) branch = std::max(branch, sp.plan.groups.size());
  const report::ModePrediction& p = predicted(u, fusion::Mode::default_mode);
  CHECK(p.launches == plan.groups.size() + branch);
  CHECK(p.total_us > u.graphs.front().ours.total_us);  // the branch is priced too
  // Eager runs the cond itself as no kernel: its branch's ops are its subgraph plan's.
  const auto eager = fuse("corpus/hand_cond_branch", fusion::Mode::eager);
  const fusion::FusionPlan& eager_plan = eager.units.front().graphs.front().fusion.ours;
  for (const auto& g : eager_plan.groups) CHECK(g.name != "higher_order.cond");
  CHECK(eager_plan.subgraphs.size() == 2);
  CHECK(eager_plan.unknown_ops.empty());
}

TEST_CASE("eager's scalars of unbacked sizes are computed on the host: no launch, no cost",
          "[report][corpus]") {
  // hand_moe_sparse_unbacked_bf16: nonzero's count is a size (sym_size), compared (ge, le) and
  // asserted (_assert_scalar); PyTorch's eager computes those in C++ on the CPU.
  const auto r = fuse("corpus/hand_moe_sparse_unbacked_bf16", fusion::Mode::eager);
  REQUIRE(r.units.size() == 1);
  const report::UnitFuseReport& u = r.units.front();
  std::size_t host = 0;
  std::size_t kernels = 0;
  for (const auto& g : u.graphs) {
    const fusion::FusionPlan& plan = g.fusion.ours;
    REQUIRE(g.ours.kernels.size() == plan.groups.size());
    for (std::size_t i = 0; i < plan.groups.size(); ++i) {
      const fusion::KernelGroup& group = plan.groups[i];
      const bool on_host = fusion::on_host(group);
      host += on_host;
      kernels += !on_host;
      INFO(group.name);
      const auto work = report::kernel_work(group, g.fusion.post_grad, plan.mode);
      CHECK((work.kernel_class == cost::KernelClass::host) == on_host);
      if (on_host) CHECK(g.ours.kernels[i].total_us == 0.0);
    }
  }
  CHECK(host >= 20);  // 4 each of sym_size, ge and le, 8 asserts
  const report::ModePrediction& p = predicted(u, fusion::Mode::eager);
  CHECK(p.launches == kernels);
}
