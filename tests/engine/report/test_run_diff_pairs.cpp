// `diff A B` on the pairs sample_graphs/capture_pairs.py captured: each pair changes one thing
// in one program, and the diff must name that thing and nothing else of substance. The cache
// captures also check the lookups against PyTorch's own counters (expected.json).
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "fxscope/report/compile_time.h"
#include "fxscope/report/run_diff.h"
#include "fxscope/report/run_diff_json.h"
#include "fxscope/report/run_diff_text.h"
#include "pytorch_counters.h"
#include "samples.h"

using namespace fxscope;
using report::KernelChangeKind;
using report::RunDiff;

namespace {

std::string pair_dir(const std::string& name) {
  return test::sample("pairs/" + name);
}

trace::TraceLog read_pair_log(const std::string& name) {
  auto log = trace::read_trace(pair_dir(name), {});
  REQUIRE(log.ok());
  return std::move(*log);
}

RunDiff diff_pair(const std::string& a, const std::string& b) {
  const auto log_a = read_pair_log(a);
  const auto log_b = read_pair_log(b);
  return report::diff_runs(log_a, log_b);
}

bool is_resume(const report::DiffUnit& u) {
  return u.frame.function.starts_with("torch_dynamo_resume_in_");
}

// Nothing of substance beyond what a pair's test names: no other break or recompile, no unit
// on one side only, no cache outcome changed.
void require_no_breaks_or_recompiles(const RunDiff& d) {
  CHECK(d.breaks_fixed.empty());
  CHECK(d.breaks_new.empty());
  CHECK(d.recompiles_fixed.empty());
  CHECK(d.recompiles_new.empty());
}

}  // namespace

TEST_CASE("a fixed .item() break: the break, its resume units and their recompile are gone",
          "[run_diff][pairs]") {
  const auto d = diff_pair("break_before", "break_after");
  CHECK_FALSE(d.unrelated());
  REQUIRE(d.breaks_fixed.size() == 1);
  CHECK(d.breaks_fixed[0].reason.find("Tensor.item()") != std::string::npos);
  CHECK(d.breaks_fixed[0].location.ends_with("capture_pairs.py:58"));
  CHECK(d.breaks_new.empty());
  CHECK(d.recompiles_new.empty());
  // The resume function recompiled on the value .item() read; with the break gone it is too.
  REQUIRE(d.recompiles_fixed.size() == 1);
  CHECK(d.recompiles_fixed[0].frame.find("torch_dynamo_resume_in_forward") != std::string::npos);
  CHECK(d.only_b.empty());
  REQUIRE(d.only_a.size() == 2);
  CHECK(std::all_of(d.only_a.begin(), d.only_a.end(), is_resume));
  // The block's unit pairs, and its graph grew by the scale the break had left outside.
  REQUIRE(d.matched.size() == 1);
  CHECK_FALSE(d.matched[0].same_graph());
  const auto& ops = d.matched[0].ops;
  CHECK(std::any_of(ops.begin(), ops.end(), [](const report::OpCountChange& c) {
    return c.op == "torch.ops.aten.reciprocal.default" && c.a == 0 && c.b > 0;
  }));
  CHECK(report::verdict(d).starts_with("1 break fixed, 1 recompile fixed"));
}

TEST_CASE("dynamic=True: the size recompile is gone and the dynamic graphs pair up",
          "[run_diff][pairs]") {
  const auto d = diff_pair("dynamic_off", "dynamic_on");
  CHECK_FALSE(d.unrelated());
  CHECK(d.breaks_fixed.empty());
  CHECK(d.breaks_new.empty());
  CHECK(d.recompiles_new.empty());
  REQUIRE(d.recompiles_fixed.size() == 1);
  CHECK(d.recompiles_fixed[0].guard.find("size mismatch at index 0") != std::string::npos);
  // The static first compile has no twin; the automatic-dynamic recompile pairs with B's one
  // compile, the same graph.
  REQUIRE(d.only_a.size() == 1);
  CHECK(d.only_a[0].compile_id == "0/0");
  CHECK(d.only_b.empty());
  REQUIRE(d.matched.size() == 1);
  CHECK(d.matched[0].a.compile_id == "0/1");
  CHECK_FALSE(d.matched[0].changed());
}

TEST_CASE("default against max-autotune: the same graph, GEMMs become templates",
          "[run_diff][pairs]") {
  const auto d = diff_pair("mode_default", "mode_max_autotune");
  require_no_breaks_or_recompiles(d);
  CHECK(d.only_a.empty());
  CHECK(d.only_b.empty());
  REQUIRE(d.matched.size() == 1);
  const auto& u = d.matched[0];
  CHECK(u.same_graph());
  REQUIRE_FALSE(u.kernels.empty());
  for (const auto& k : u.kernels) {
    CHECK(k.kind == KernelChangeKind::refused);
    CHECK(std::any_of(k.a.begin(), k.a.end(), [](const std::string& n) { return n == "addmm"; }));
    CHECK(std::any_of(k.b.begin(), k.b.end(),
                      [](const std::string& n) { return n.starts_with("triton_tem_"); }));
  }
  CHECK(d.b_compile_s > d.a_compile_s);  // autotuning the templates, from the events
}

TEST_CASE("cold against warm cache: every lookup misses then hits, with the same keys",
          "[run_diff][pairs]") {
  const auto d = diff_pair("cache_cold", "cache_warm");
  CHECK(d.same_compiles());
  REQUIRE(d.matched.size() == 1);
  const auto& caches = d.matched[0].caches;
  REQUIRE(caches.size() == 3);  // the forward's and the backward's FX graphs, AOTAutograd's
  for (const auto& c : caches) {
    CHECK(c.a_state == "miss");
    CHECK(c.b_state == "hit");
    CHECK(c.same_key);
    CHECK(c.components.empty());
  }
  CHECK(report::verdict(d).starts_with(
      "AOTAutograd cache miss -> hit (1), FX graph cache miss -> hit (2)"));
}

TEST_CASE("a changed Inductor setting: the keys differ in that setting alone",
          "[run_diff][pairs]") {
  const auto d = diff_pair("cache_warm", "cache_config");
  CHECK(d.same_compiles());
  REQUIRE(d.matched.size() == 1);
  const auto& caches = d.matched[0].caches;
  REQUIRE(caches.size() == 3);
  for (const auto& c : caches) {
    CHECK(c.a_state == "hit");
    CHECK(c.b_state == "miss");
    CHECK_FALSE(c.same_key);
    REQUIRE(c.components.size() == 1);
    CHECK(c.components[0].name == "inductor_config[max_autotune_pointwise]");
    CHECK(c.components[0].a == "False");
    CHECK(c.components[0].b == "True");
  }
}

TEST_CASE("the diff counts each side's hits and misses as PyTorch's counters do",
          "[run_diff][pairs]") {
  const auto d = diff_pair("cache_warm", "cache_config");
  const auto warm = test::pytorch_counters(pair_dir("cache_warm"));
  const auto config = test::pytorch_counters(pair_dir("cache_config"));
  // FX graph's hit and miss rows, then AOTAutograd's: no other state was logged.
  REQUIRE(d.cache_states.size() == 4);
  const struct {
    const char* cache;
    const char* state;
    const char* group;
    const char* counter;
  } expected[] = {{"FX graph", "hit", "inductor", "fxgraph_cache_hit"},
                  {"FX graph", "miss", "inductor", "fxgraph_cache_miss"},
                  {"AOTAutograd", "hit", "aot_autograd", "autograd_cache_hit"},
                  {"AOTAutograd", "miss", "aot_autograd", "autograd_cache_miss"}};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO(expected[i].cache << " " << expected[i].state);
    const auto& c = d.cache_states[i];
    CHECK(c.cache == expected[i].cache);
    CHECK(c.state == expected[i].state);
    CHECK(c.a == std::size_t(test::pytorch_counter(warm, expected[i].group, expected[i].counter)));
    CHECK(c.b ==
          std::size_t(test::pytorch_counter(config, expected[i].group, expected[i].counter)));
  }
  // The warm run hit both caches; the changed setting missed them.
  CHECK(d.cache_states[0].a == 2);
  CHECK(d.cache_states[1].b == 2);
  const auto j = report::to_json(d);
  REQUIRE(j.at("cache_lookups").size() == 4);
  CHECK(j.at("cache_lookups").at(1) ==
        nlohmann::json{{"cache", "FX graph"}, {"state", "miss"}, {"a", 0}, {"b", 2}});
}

TEST_CASE("a warm run's FX graph hits are read from their artifacts, the backward named",
          "[run_diff][pairs]") {
  // The warm run's FX graphs load through AOTAutograd's cache, without a compile event: the
  // lookups come from their artifacts, the backward one named as such.
  const auto warm = report::compile_time(read_pair_log("cache_warm"));
  REQUIRE(warm.units.size() == 1);
  const auto& caches = warm.units[0].caches;
  CHECK(std::count_if(caches.begin(), caches.end(), [](const report::CacheLookup& l) {
          return l.cache == "fx_graph" && l.backward;
        }) == 1);
}

TEST_CASE("a step writing its KV-cache inputs: no CUDA graph recorded, as fxscope predicts",
          "[run_diff][pairs]") {
  // PyTorch decided the skip at the first call (mutated inputs), after the compile's metrics
  // were written: the record's skip reason is empty, and no graph was recorded at the calls.
  const auto times = report::compile_time(read_pair_log("cudagraph_skip"));
  REQUIRE(times.units.size() == 1);
  const auto& u = times.units[0];
  CHECK_FALSE(u.cudagraph_skip_reason);
  REQUIRE(u.cuda_graphs_recorded);
  CHECK(*u.cuda_graphs_recorded == 0);
  CHECK(u.cuda_graphs_skipped());
  REQUIRE(u.cuda_graph_prediction);
  CHECK_FALSE(u.cuda_graph_prediction->usable);
  REQUIRE_FALSE(u.cuda_graph_prediction->reasons.empty());
  CHECK(u.cuda_graph_prediction->reasons[0].starts_with("mutation of 2 inputs, by index_put"));
  CHECK(u.cuda_graph_prediction_agrees() == true);
  // A reduce-overhead capture that recorded its graphs (one per input shape).
  const auto recorded =
      report::compile_time(*trace::read_trace(test::sample("reduce_overhead_dynamic")));
  REQUIRE_FALSE(recorded.units.empty());
  REQUIRE(recorded.units[0].cuda_graphs_recorded);
  CHECK(*recorded.units[0].cuda_graphs_recorded == 3);
  CHECK_FALSE(recorded.units[0].cuda_graphs_skipped());
}
