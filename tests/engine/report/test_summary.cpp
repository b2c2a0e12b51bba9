#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "fxscope/report/summary.h"
#include "fxscope/report/summary_json.h"
#include "fxscope/report/summary_text.h"
#include "log_payloads.h"

using namespace fxscope;

namespace {

report::Summary summary_of(const std::string& sample) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log.ok());
  return report::summarize(*log);
}

const report::UnitSummary& unit(const report::Summary& s, const std::string& id) {
  for (const auto& u : s.units) {
    if (u.compile_id == id) return u;
  }
  FAIL("no unit " << id);
  return s.units.front();
}

}  // namespace

TEST_CASE("every sample summarizes without warnings and with every level counted", "[report]") {
  for (const auto& sample : test::all_samples()) {
    INFO(sample);
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log.ok());
    const auto s = report::summarize(*log);
    CHECK(s.warnings.empty());
    REQUIRE(s.units.size() == log->units().size());
    for (std::size_t i = 0; i < s.units.size(); ++i) {
      const auto& u = s.units[i];
      INFO(u.compile_id);
      CHECK(u.dynamo_ops.has_value());
      CHECK(u.aten_ops.has_value());
      CHECK(u.post_grad_ops.has_value());
      REQUIRE(u.inductor_kernels.has_value());
      CHECK(*u.inductor_kernels == u.triton_launches + u.extern_launches);
      // Dynamo counts the ops of its own graph in compilation_metrics: the parser must agree.
      const auto& metrics = log->units()[i].metrics;
      REQUIRE(metrics.has_value());
      REQUIRE(metrics->graph_op_count.has_value());
      CHECK(static_cast<std::int64_t>(*u.dynamo_ops) == *metrics->graph_op_count);
    }
  }
}

TEST_CASE("graph_breaks: units, frames, breaks and recompiles", "[report]") {
  const auto s = summary_of("graph_breaks");
  CHECK(s.units.size() == 11);
  CHECK(s.frame_count() == 5);
  CHECK(s.graph_breaks.size() == 3);
  CHECK(s.graph_break_hits() == 4);
  CHECK(s.recompiles.size() == 6);

  const auto& first = unit(s, "0/0");
  CHECK(first.attempts == 2);  // Dynamo restarted after the .item() break
  CHECK(first.frame.function == "forward");
  CHECK(first.frame.line == 81);
  REQUIRE(first.graph_breaks.size() == 1);
  CHECK(s.graph_breaks[first.graph_breaks[0]].gb_code == "gb0124");

  const auto& last = unit(s, "4/4");
  CHECK(last.dynamo_ops == 5u);
  CHECK(last.inductor_kernels == 1u);
  REQUIRE(last.recompile.has_value());
  CHECK(s.recompiles[*last.recompile].reasons.size() == 4);
}

TEST_CASE("kernel launches per model match the output code", "[report]") {
  CHECK(unit(summary_of("residual_mlp"), "0/0").inductor_kernels == 3u);
  const auto resnet = summary_of("resnet18");
  CHECK(unit(resnet, "0/0").inductor_kernels == 57u);
  CHECK(unit(resnet, "0/0").extern_launches == 21u);
  CHECK(unit(resnet, "0/0").dynamo_ops == 69u);
  CHECK(unit(summary_of("gpt2_2layer"), "0/0").inductor_kernels == 20u);
  CHECK(unit(summary_of("residual_mlp_train"), "0/0").inductor_kernels == 11u);  // fwd 5, bwd 6
  CHECK(unit(summary_of("reduce_overhead_dynamic"), "0/0").inductor_kernels == 3u);
}

TEST_CASE("the JSON summary has the documented fields", "[report]") {
  const auto j = report::to_json(summary_of("graph_breaks"));
  REQUIRE(j["units"].size() == 11);
  const auto& u = j["units"][0];
  for (const char* key : {"compile_id", "frame", "dynamo_ops", "aten_ops", "inductor_kernels"}) {
    CHECK(u.contains(key));
  }
  CHECK(u["compile_id"] == "0/0");
  REQUIRE(j["graph_breaks"].size() == 3);
  const auto& print_break = j["graph_breaks"][1];
  CHECK(print_break["gb_code"] == "gb0059");
  CHECK(print_break["count"] == 2);
  CHECK(print_break["line"] == 85);
  CHECK(print_break["compile_id"] == "1/0");
  REQUIRE(j["recompiles"].size() == 6);
  CHECK(j["recompiles"][1]["compile_id"] == "3/1");
  CHECK(j["recompiles"][1]["reasons"][0] ==
        "3/0: tensor '___stack0' size mismatch at index 0. expected 177, actual 180");
  CHECK(j["warnings"].empty());
}

TEST_CASE("the text summary names breaks, hints and recompile reasons", "[report]") {
  const auto text = report::to_text(summary_of("graph_breaks"));
  CHECK_THAT(text, Catch::Contains("11 compile units in 5 frames, 3 graph breaks (4 hits)"));
  CHECK_THAT(text,
             Catch::Contains("capture.py:85  Failed to trace builtin operator  [gb0059]  x2"));
  CHECK_THAT(text,
             Catch::Contains("hint: Set `torch._dynamo.config.capture_scalar_outputs = True`"));
  CHECK_THAT(text,
             Catch::Contains("4/1: tensor 'x' dtype mismatch. expected Float, actual Double"));
}

TEST_CASE("the summary ranks the recompile causes with their fixes", "[report][recompiles]") {
  const auto s = summary_of("graph_breaks");
  REQUIRE_FALSE(s.recompile_check.ranked.empty());
  CHECK(s.recompile_check.ranked[0].cause.kind == "dtype");
  CHECK(s.recompile_check.ranked[0].count() == 3);
  const auto text = report::to_text(s);
  CHECK_THAT(text, Catch::Contains("  why it recompiled, most often first:\n"
                                   "    3x dtype of x: Float -> Double  [4/2, 4/3, 4/4]\n"));
  CHECK_THAT(text, Catch::Contains("        fix: cast x to one dtype before the call"));
  const auto j = report::to_json(s);
  const auto& ranked = j.at("recompile_causes").at("ranked");
  REQUIRE(ranked.size() == s.recompile_check.ranked.size());
  CHECK(ranked.at(0).at("kind") == "dtype");
  CHECK(ranked.at(0).at("after") == "Double");
  CHECK(j.at("recompile_causes").at("limit_hits").empty());

  // A log without recompiles says nothing of causes.
  const auto quiet = summary_of("residual_mlp");
  CHECK(quiet.recompile_check.ranked.empty());
  CHECK_THAT(report::to_text(quiet), !Catch::Contains("why it recompiled"));
  CHECK(report::to_json(quiet).at("recompile_causes").at("ranked").empty());
}

TEST_CASE("the summary's causes are the recompile check's, each with a fix",
          "[report][recompiles]") {
  for (const char* sample : {"corpus/hand_recompiles_python", "corpus/hand_recompiles_tensor",
                             "corpus/hand_recompiles_module"}) {
    INFO(sample);
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log.ok());
    const auto s = report::summarize(*log);
    const auto check = report::check_recompiles(*log, std::nullopt);
    REQUIRE(check.ok());
    REQUIRE(s.recompile_check.ranked.size() == check->ranked.size());
    REQUIRE_FALSE(check->ranked.empty());
    const auto text = report::to_text(s);
    for (std::size_t i = 0; i < check->ranked.size(); ++i) {
      const auto& cause = s.recompile_check.ranked[i].cause;
      CHECK(cause.source == check->ranked[i].cause.source);
      CHECK_FALSE(cause.fix.empty());
      CHECK_THAT(text, Catch::Contains("fix: " + cause.fix));
    }
  }
  CHECK_THAT(report::to_text(summary_of("corpus/hand_recompiles_python")),
             Catch::Contains("fix: hoist the branch on act"));
}

namespace {

const report::BreakImpact& impact_at(const report::Summary& s, int line) {
  for (const auto& i : s.break_impacts) {
    if (s.graph_breaks[i.graph_break].line == line) return i;
  }
  FAIL("no graph break at line " << line);
  return s.break_impacts.front();
}

}  // namespace

TEST_CASE("graph breaks ranked by predicted time lost, term by term", "[report][breaks]") {
  const auto s = summary_of("graph_breaks");
  REQUIRE(s.break_impacts.size() == 3);
  for (std::size_t i = 1; i < s.break_impacts.size(); ++i) {
    CHECK(s.break_impacts[i - 1].lost_us() >= s.break_impacts[i].lost_us());
  }
  const double launch = s.impact_device.launch_overhead_us;
  // .item(): the sum Dynamo returned first is read back eagerly with a host sync; 0/0 resumes
  // in 1/0, which takes h (8x64 f32) across the break.
  const auto& item = impact_at(s, 83);
  CHECK(item.split == std::vector<std::string>{"0/0"});
  CHECK(item.resumed == std::vector<std::string>{"1/0"});
  CHECK(item.eager_ops == std::vector<std::string>{"aten._local_scalar_dense.default"});
  CHECK(item.host_sync);
  CHECK(item.eager_input_bytes == 4);  // sum_1, a 0-d f32
  CHECK(item.crossing_tensors == 1);
  CHECK(item.crossing_bytes == 8 * 64 * 4);
  CHECK(item.sync_us == launch);
  CHECK(item.launch_us == launch);
  CHECK(item.guard_us == 79);  // 1/0's guard_latency_us
  // print: no op leaves the graph, but the split costs the same kinds of time.
  const auto& print = impact_at(s, 85);
  CHECK(print.eager_ops.empty());
  CHECK_FALSE(print.host_sync);
  CHECK(print.eager_us == 0);
  CHECK(print.split == std::vector<std::string>{"1/0", "1/1"});
  CHECK(print.resumed == std::vector<std::string>{"2/0"});
  // nonzero: the op Dynamo names, on gt's 8x64 bools.
  const auto& nonzero = impact_at(s, 86);
  CHECK(nonzero.eager_ops == std::vector<std::string>{"aten.nonzero.default"});
  CHECK(nonzero.eager_input_bytes == 8 * 64);
  CHECK(nonzero.lost_us() == Approx(nonzero.eager_us + nonzero.sync_us + nonzero.crossing_us +
                                    nonzero.launch_us + nonzero.guard_us));

  const auto text = report::to_text(s);
  CHECK_THAT(text, Catch::Contains("by predicted time lost a call on H200, largest first"));
  CHECK_THAT(text, Catch::Contains("     split: 0/0 -> 1/0\n"));
  CHECK_THAT(text, Catch::Contains("eager (aten.nonzero.default) 5.0 + host sync 5.0"));
  const auto j = report::to_json(s);
  const auto& ranked = j.at("break_impact").at("ranked");
  REQUIRE(ranked.size() == 3);
  CHECK(j.at("break_impact").at("device") == "H200");
  CHECK(ranked.at(0).at("lost_us") == Approx(s.break_impacts[0].lost_us()));
  CHECK(j.at("graph_breaks").at(ranked.at(0).at("graph_break").get<std::size_t>()).at("line") ==
        s.graph_breaks[s.break_impacts[0].graph_break].line);
}

TEST_CASE("a break in a called function resumes at the call and a break in a loop skips the frame",
          "[report][breaks]") {
  const auto s = summary_of("corpus/tv_ssdlite320_detection");
  // 0/0 broke inside postprocess_detections (ssd.py:436); forward resumes at its call, line 404.
  const auto& nonzero = impact_at(s, 436);
  REQUIRE(nonzero.split.front() == "0/0");
  CHECK(nonzero.resumed == std::vector<std::string>{"9/0"});
  CHECK(nonzero.eager_ops == std::vector<std::string>{"aten.nonzero.default"});
  CHECK(nonzero.crossing_bytes > 0);
  // nms is torchvision's op, named as Dynamo names it.
  CHECK(impact_at(s, 48).eager_ops == std::vector<std::string>{"torchvision.nms.default"});
  std::size_t skipped = 0;
  for (const auto& i : s.break_impacts) skipped += i.frame_skipped ? 1 : 0;
  CHECK(skipped == 2);
  CHECK_THAT(report::to_text(s), Catch::Contains("the whole frame runs eagerly"));
}

TEST_CASE("every corpus break is priced and names the compiles it split", "[report][breaks]") {
  std::size_t breaks = 0;
  std::size_t resumed = 0;
  std::ifstream in(test::sample("corpus") + "/manifest.json");
  const auto manifest = nlohmann::json::parse(in);
  for (const auto& entry : manifest.at("logs")) {
    const std::string sample = "corpus/" + entry.at("name").get<std::string>();
    INFO(sample);
    const auto s = summary_of(sample);
    REQUIRE(s.break_impacts.size() == s.graph_breaks.size());
    for (const auto& i : s.break_impacts) {
      ++breaks;
      CHECK_FALSE(i.split.empty());
      CHECK(i.lost_us() >= 0);
      if (!i.resumed.empty()) ++resumed;
    }
  }
  // BART's data-dependent branches (4) and Mixtral's routing, whose Inductor failures Dynamo
  // turns into breaks (24), among them.
  CHECK(breaks == 37);
  CHECK(resumed == 8);
}
