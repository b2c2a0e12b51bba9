// Where compile time went: the phase trees read from real logs' chromium events, checked against
// Dynamo's own totals (compilation_metrics) on every bundled log.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "fxscope/report/compile_time.h"
#include "fxscope/report/compile_time_json.h"
#include "fxscope/report/compile_time_text.h"
#include "log_payloads.h"
#include "samples.h"

using namespace fxscope;
using report::CompileTimeReport;
using report::PhaseTree;
using report::UnitCompileTime;

namespace {

CompileTimeReport report_of(const std::string& path) {
  auto log = trace::read_trace(path);
  REQUIRE(log.ok());
  return report::compile_time(*log);
}

const UnitCompileTime& unit(const CompileTimeReport& r, const std::string& id) {
  for (const auto& u : r.units) {
    if (u.compile_id == id) return u;
  }
  FAIL("no unit " << id);
  return r.units.front();
}

const report::PhaseTime* phase(const PhaseTree& tree, const std::string& name) {
  const auto it = std::find_if(tree.phases.begin(), tree.phases.end(),
                               [&](const report::PhaseTime& p) { return p.name == name; });
  return it == tree.phases.end() ? nullptr : &*it;
}

// Every corpus log and every model sample, by path.
std::vector<std::string> every_log() {
  std::vector<std::string> paths;
  for (const auto& name : test::all_samples()) paths.push_back(test::sample(name));
  std::ifstream in(test::sample("corpus") + "/manifest.json");
  const auto manifest = nlohmann::json::parse(in);
  for (const auto& entry : manifest.at("logs")) {
    paths.push_back(test::sample("corpus/" + entry.at("name").get<std::string>()) + "/" +
                    entry.at("log").get<std::string>());
  }
  return paths;
}

}  // namespace

TEST_CASE("every compile's phases add up to Dynamo's own total within 2%",
          "[report][compile_time][corpus]") {
  std::size_t checked = 0;
  for (const auto& path : every_log()) {
    INFO(path);
    auto log = trace::read_trace(path);
    REQUIRE(log.ok());
    const auto r = report::compile_time(*log);
    for (std::size_t i = 0; i < r.units.size(); ++i) {
      const auto& u = r.units[i];
      const auto& logged = log->units()[i];
      INFO(u.compile_id);
      CHECK(u.unmatched_events == 0);
      // Every compile Dynamo timed has its events in the log.
      if (logged.metrics && logged.metrics->entire_frame_compile_time_s) REQUIRE(u.forward);
      if (!logged.backward_metrics.empty() && logged.backward_metrics[0].duration_us) {
        REQUIRE(u.backward);
      }
      for (const auto* tree :
           {u.forward ? &*u.forward : nullptr, u.backward ? &*u.backward : nullptr}) {
        if (tree == nullptr || !tree->dynamo_s) continue;
        ++checked;
        CHECK(std::abs(*tree->deviation()) <= report::kCompileTimeTolerance);
        // The own times (the unaccounted remainder included) are what add up, not the totals.
        double own = 0;
        for (const auto& p : tree->phases) own += p.self_s;
        CHECK(own == Approx(tree->accounted_s));
        CHECK(tree->other_s >= 0);
        CHECK(tree->other_s < tree->events_s);
      }
    }
  }
  CHECK(checked >= 150);  // 152 forward and backward compiles with a Dynamo total
}

TEST_CASE("DDP compiles a unit's backward once per bucket: every record counts",
          "[report][compile_time]") {
  // DDPOptimizer splits the frame at its gradient buckets; the backward of each piece is its own
  // compile with its own bwd_compilation_metrics record, on every rank.
  for (int rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    auto log = trace::read_trace(test::sample("ranks_ddp"), {.rank = rank});
    REQUIRE(log.ok());
    const auto* logged = log->find_unit(trace::CompileId{4, 0, 0});
    REQUIRE(logged != nullptr);
    CHECK(logged->backward_metrics.size() == 4);
    const auto r = report::compile_time(*log);
    const auto& u = unit(r, "4/0");
    REQUIRE(u.backward);
    CHECK(u.backward->phases.front().count == 4);
    REQUIRE(u.backward->deviation());
    CHECK(std::abs(*u.backward->deviation()) <= report::kCompileTimeTolerance);
  }
  const auto r = report_of(test::sample("ranks_ddp"));
  const auto& u = unit(r, "4/0");
  // Rank 0's four records: 1.899946 + 1.022075 + 0.119216 + 0.104321 s.
  CHECK(*u.backward->dynamo_s == Approx(3.145558).margin(1e-6));
  // The forward's four kernels, then each backward's: 3, 1, 1 and 1.
  REQUIRE(u.triton_compiles.size() == 10);
  CHECK(u.triton_compiles[4].kernel ==
        "triton_per_fused_add_gelu_native_layer_norm_native_layer_norm_backward_0");
  CHECK(u.triton_compiles[4].us == 987926);
  CHECK(u.triton_compiles[9].us == 1294);
}

TEST_CASE("a training compile: Dynamo, AOTAutograd, Inductor phases and the backward",
          "[report][compile_time]") {
  const auto r = report_of(test::sample("residual_mlp_train"));
  const auto& u = unit(r, "0/0");
  REQUIRE(u.forward);
  const auto& fw = *u.forward;
  CHECK(fw.root == "entire_frame_compile");
  CHECK(fw.dynamo_s == Approx(4.432228));
  CHECK(fw.events_s == Approx(4.432229).margin(1e-5));
  for (const char* name :
       {"bytecode_tracing", "create_aot_dispatcher_function", "aot_trace_joint_graph",
        "min_cut_rematerialization_partition", "pass.joint_graph_passes.pass_pattern_0",
        "GraphLowering.run", "Scheduler.__init__", "build_guards"}) {
    INFO(name);
    CHECK(phase(fw, name) != nullptr);
  }
  // Inductor compiled the module's kernels in two precompile rounds: one row, counted twice.
  const auto* precompile = phase(fw, "async_compile.precompile");
  REQUIRE(precompile != nullptr);
  CHECK(precompile->count == 2);
  CHECK(precompile->what == "Triton kernel compiles");
  CHECK(precompile->total_s == Approx(1.077364 + 0.363306).margin(1e-5));
  // Nesting: lowering sits under Inductor, under the backend, under the first attempt.
  const auto* lowering = phase(fw, "GraphLowering.run");
  CHECK(lowering->depth == 7);
  CHECK(lowering->total_s == Approx(0.727309).margin(1e-5));

  REQUIRE(u.backward);
  CHECK(u.backward->root == "entire_backward_compile");
  CHECK(u.backward->dynamo_s == Approx(2.41986));
  CHECK(phase(*u.backward, "compile_fx.<locals>.bw_compiler") != nullptr);

  // Caches were off in the capture: Inductor says so for both directions.
  REQUIRE(u.caches.size() == 2);
  CHECK(u.caches[0].cache == "fx_graph");
  CHECK(u.caches[0].state == "disabled");
  CHECK(u.caches[0].reason == "cache not enabled");
  CHECK_FALSE(u.caches[0].backward);
  CHECK(u.caches[1].backward);

  REQUIRE(u.triton_compiles.size() == 4);
  CHECK(u.triton_compiles[0].kernel == "triton_poi_fused_addmm_native_dropout_0");
  CHECK(u.triton_compiles[0].us == 1076732);
  CHECK(u.guard_count == 60);
  CHECK(u.guard_latency_us == 80);

  // The kernels' configs were benchmarked at the first call, outside the compile.
  REQUIRE(u.runtime.size() == 4);
  CHECK(u.runtime[0].name == "CachingAutotuner.benchmark_all_configs");
  CHECK(u.runtime[0].kernel == "triton_poi_fused_addmm_native_dropout_0");
  CHECK(u.runtime[0].seconds == Approx(0.119580).margin(1e-5));
  CHECK(r.total_s == Approx(fw.events_s + u.backward->events_s));
}

TEST_CASE("cache hits and misses with their keys, as Inductor logged them",
          "[report][compile_time]") {
  const auto r = report_of(
      test::sample("public/tlparse/multi_rank_logs/dedicated_log_torch_trace_rank_1.log.zst"));
  const auto& hit = unit(r, "0/0");
  const auto aot = std::find_if(hit.caches.begin(), hit.caches.end(),
                                [](const auto& c) { return c.cache == "aot_autograd"; });
  REQUIRE(aot != hit.caches.end());
  CHECK(aot->state == "hit");
  CHECK(aot->key == "aio6k6ewfzf3qzhxsfxjm6qeirp7kky7kyg7ihus6io4wjpfjlnv");
  // A hit loads the compiled module: no Inductor phases below the backend.
  REQUIRE(hit.forward);
  CHECK(phase(*hit.forward, "AOTAutogradCache.inductor_load") != nullptr);
  CHECK(phase(*hit.forward, "GraphLowering.run") == nullptr);

  const auto& miss = unit(r, "0/10");
  const auto fx = std::find_if(miss.caches.begin(), miss.caches.end(),
                               [](const auto& c) { return c.cache == "fx_graph"; });
  REQUIRE(fx != miss.caches.end());
  CHECK(fx->state == "miss");
  CHECK(fx->key == "fg6jlvy4daz6v3zct6txtrq4aohpd7nxylcbhb4beckfdrfo7itz");
}

TEST_CASE("max-autotune: template autotuning is a phase of the compile", "[report][compile_time]") {
  const auto r = report_of(test::sample("max_autotune_mlp"));
  bool autotuned = false;
  for (const auto& u : r.units) {
    if (!u.forward || !u.autotune_us) continue;
    const auto tuning = std::find_if(
        u.forward->phases.begin(), u.forward->phases.end(),
        [](const report::PhaseTime& p) { return p.what == "max-autotune: benchmark choices"; });
    REQUIRE(tuning != u.forward->phases.end());
    CHECK(tuning->total_s > 0.01);
    autotuned = true;
  }
  CHECK(autotuned);
}

TEST_CASE("the whole run ranks phases by their own time, the same in text and JSON",
          "[report][compile_time]") {
  const auto r = report_of(test::sample("graph_breaks"));
  REQUIRE(r.by_phase.size() > 10);
  CHECK(std::is_sorted(r.by_phase.begin(), r.by_phase.end(),
                       [](const auto& a, const auto& b) { return a.self_s > b.self_s; }));
  double own = 0;
  for (const auto& p : r.by_phase) own += p.self_s;
  CHECK(own == Approx(r.total_s).epsilon(1e-6));

  const auto j = report::to_json(r);
  CHECK(j.at("units").size() == r.units.size());
  CHECK(j.at("compiles_checked").get<std::size_t>() > 0);
  CHECK(j.at("compiles_within_tolerance") == j.at("compiles_checked"));
  const auto& fw = j.at("units").at(0).at("forward");
  CHECK(fw.at("root") == "entire_frame_compile");
  CHECK(fw.at("within_tolerance") == true);
  CHECK(fw.at("phases").at(0).at("depth") == 0);

  const std::string text = report::to_text(r);
  CHECK_THAT(text, Catch::Contains("where it went, all units"));
  CHECK_THAT(text, Catch::Contains("[0/0] forward: "));
  CHECK_THAT(text, Catch::Contains("within 2%"));
  CHECK_THAT(text, Catch::Contains("other: inside entire_frame_compile, in no timed phase"));
  CHECK_THAT(text, Catch::Contains("bytecode_tracing  (Dynamo tracing)"));
}

TEST_CASE("PyTorch's cudagraph_skip_reason beside fxscope's own CUDA-graph check",
          "[report][compile_time][cuda_graphs]") {
  // A copy of a corpus reduce-overhead log whose metrics record says PyTorch skipped CUDA graphs
  // (tests/data/compile_time/README.md): no bundled log has PyTorch skip them.
  auto log = trace::read_trace(test::data("compile_time/cudagraph_skipped"));
  REQUIRE(log.ok());
  const auto r = report::compile_time(*log);
  REQUIRE(r.units.size() == 1);
  const auto& u = r.units.front();
  REQUIRE(u.cudagraph_skip_reason.has_value());
  CHECK(*u.cudagraph_skip_reason == "skipping cudagraphs due to mutated inputs (1 instances)");
  REQUIRE(u.cuda_graph_prediction.has_value());
  CHECK(u.cuda_graph_prediction->usable);  // no input of that graph is mutated
  CHECK_THAT(report::to_text(r),
             Catch::Contains("  CUDA graphs: PyTorch skipped them: skipping cudagraphs due to "
                             "mutated inputs (1 instances); fxscope predicts usable (DIFFERS)\n"));
  const auto j = report::to_json(r).at("units").at(0);
  CHECK(j.at("cudagraph_skip_reason") == *u.cudagraph_skip_reason);
  CHECK(j.at("cuda_graph_prediction").at("usable") == true);
  CHECK(j.at("cuda_graph_prediction").at("agrees") == false);

  // The original log: PyTorch captured the graph, and fxscope agrees.
  auto original = trace::read_trace(test::sample("corpus/hand_attention_ro_bf16"));
  REQUIRE(original.ok());
  const auto o = report::compile_time(*original);
  REQUIRE(o.units.front().cuda_graph_prediction.has_value());
  CHECK_FALSE(o.units.front().cudagraph_skip_reason.has_value());
  CHECK_THAT(report::to_text(o),
             Catch::Contains("CUDA graphs: PyTorch recorded 1 CUDA graph; fxscope predicts usable "
                             "(agrees)"));
}

TEST_CASE("the CUDA-graph check runs for the units of CUDA-graph modes alone",
          "[report][compile_time][cuda_graphs]") {
  std::size_t checked = 0;
  std::size_t agree = 0;
  for (const auto& path : every_log()) {
    INFO(path);
    auto log = trace::read_trace(path);
    REQUIRE(log.ok());
    for (const auto& u : report::compile_time(*log).units) {
      if (!u.cuda_graph_prediction) continue;
      ++checked;
      if (u.cuda_graph_prediction->usable != u.cudagraph_skip_reason.has_value()) ++agree;
    }
  }
  // 20 units compiled in reduce-overhead or max-autotune (training steps' among them: Gemma's
  // forward and backward); PyTorch captured every one, and fxscope agrees on all:
  // hand_moe_topk_max_autotune_bf16's index_put_ writes a buffer the graph made, not an input.
  CHECK(checked == 20);
  CHECK(agree == 20);
  auto plain = trace::read_trace(test::sample("resnet18"));
  REQUIRE(plain.ok());
  CHECK_FALSE(report::compile_time(*plain).units.front().cuda_graph_prediction.has_value());
}
