#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "fxscope/guards/input_spec.h"
#include "fxscope/report/guards_report.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::report;

namespace {

trace::TraceLog read(const char* sample) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log.ok());
  return std::move(*log);
}

guards::ProposedInput input(std::initializer_list<const char*> tensors,
                            std::initializer_list<const char*> constants = {}) {
  guards::ProposedInput in;
  for (const char* spec : tensors) in.tensors.push_back(*guards::parse_tensor_spec(spec));
  for (const char* spec : constants) in.constants.push_back(*guards::parse_constant_spec(spec));
  return in;
}

trace::CompileId id(const char* text) {
  return *trace::CompileId::parse(text);
}

const FrameVerdict& frame(const InputReport& report, int frame_id) {
  for (const auto& f : report.frames) {
    if (f.frame_id == frame_id) return f;
  }
  FAIL("no frame " << frame_id);
  return report.frames.front();
}

}  // namespace

TEST_CASE("an input 4/0 was not compiled for fails its size guard in Dynamo's words",
          "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report = evaluate_input(log, id("4/0"), input({"x=16x32:f32"}));
  REQUIRE(report.ok());
  REQUIRE(report->frames.size() == 1);
  const auto& f = report->frames[0];
  CHECK(f.function == "pointwise_fn");
  CHECK(f.newest.str() == "4/0");
  CHECK_FALSE(f.reused);
  REQUIRE(f.entries.size() == 1);
  CHECK(f.entries[0].evaluation.reason ==
        "tensor 'x' size mismatch at index 0. expected 8, actual 16");

  const auto text = to_text(*report);
  CHECK_THAT(
      text, Catch::Contains("  4/0: tensor 'x' size mismatch at index 0. expected 8, actual 16\n"));
  CHECK_THAT(text, Catch::Contains("=> recompiles: no cache entry accepts this input"));
  const auto j = to_json(*report);
  CHECK(j["frames"][0]["recompiles"] == true);
  CHECK(j["frames"][0]["reused"].is_null());
  CHECK(j["frames"][0]["entries"][0]["reason"] ==
        "tensor 'x' size mismatch at index 0. expected 8, actual 16");
}

TEST_CASE("the input 4/0 was compiled for reuses it", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report =
      evaluate_input(log, id("4/0"), input({"x=8x32:float32:stride=32x1:cuda:0"}, {"act=relu"}));
  REQUIRE(report.ok());
  const auto& f = report->frames.at(0);
  REQUIRE(f.reused);
  CHECK(f.reused->str() == "4/0");
  CHECK(f.entries[0].evaluation.checked >= 2);
  CHECK_THAT(to_text(*report), Catch::Contains("=> reuses 4/0"));
}

TEST_CASE("the cache is checked newest entry first, up to the entry reused", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report = evaluate_input(log, id("4/4"), input({"x=16x32:f32"}, {"act=relu"}));
  REQUIRE(report.ok());
  const auto& f = report->frames.at(0);
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries[0].compile_id.str() == "4/4");
  CHECK(f.entries[0].evaluation.reason == "act == 'gelu'");
  CHECK(f.entries[1].evaluation.reason ==
        "tensor 'x' stride mismatch at index 0. expected 1, actual 32");
  CHECK(f.entries[2].evaluation.reason ==
        "tensor 'x' dtype mismatch. expected Double, actual Float");
  CHECK(f.entries[3].evaluation.reused);
  REQUIRE(f.reused);
  CHECK(f.reused->str() == "4/1");
}

TEST_CASE("without a unit every frame is checked with its whole cache", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report = evaluate_input(log, std::nullopt, input({"x=16x32:f64"}, {"act=relu"}));
  REQUIRE(report.ok());
  CHECK(report->frames.size() == 5);
  const auto& f4 = frame(*report, 4);
  CHECK(f4.newest.str() == "4/4");
  REQUIRE(f4.reused);
  CHECK(f4.reused->str() == "4/2");
  CHECK(f4.unguarded.empty());
  // Frames that read neither x nor act keep their newest entry.
  for (const auto& f : report->frames) {
    if (f.unguarded.size() == 2) {
      INFO("frame " << f.frame_id);
      CHECK(f.reused);
    }
  }
}

TEST_CASE("an unknown unit is an error naming it and the log", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report = evaluate_input(log, id("9/9"), input({"x=16x32:f32"}));
  REQUIRE_FALSE(report.ok());
  CHECK_THAT(report.error().message, Catch::Contains("no compile unit 9/9"));
  CHECK_THAT(report.error().message, Catch::Contains(log.path()));
  CHECK_FALSE(list_guards(log, id("9/9")).ok());
  CHECK_FALSE(check_recompiles(log, id("9/9")).ok());
}

TEST_CASE("dynamic dims pass the tensor check and meet the shape guards", "[report][guards]") {
  const auto log = read("reduce_overhead_dynamic");
  const auto reused = evaluate_input(log, id("0/0"), input({"x=64x256:f32"}));
  REQUIRE(reused.ok());
  CHECK(reused->frames.at(0).reused);

  const auto too_small = evaluate_input(log, id("0/0"), input({"x=1x256:f32"}));
  REQUIRE(too_small.ok());
  CHECK(too_small->frames.at(0).entries.at(0).evaluation.reason == "2 <= x.size()[0]");

  const auto narrow = evaluate_input(log, id("0/0"), input({"x=64x128:f32"}));
  REQUIRE(narrow.ok());
  // TensorCheck::check_verbose compares every size before any stride: size 1 differs first.
  CHECK(narrow->frames.at(0).entries.at(0).evaluation.reason ==
        "tensor 'x' size mismatch at index 1. expected 256, actual 128");
}

TEST_CASE("the listing shows each unit's tensors, constants and shape guards", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto listing = list_guards(log, std::nullopt);
  REQUIRE(listing.ok());
  CHECK(listing->units.size() == log.units().size());
  const auto one = list_guards(log, id("4/0"));
  REQUIRE(one.ok());
  const auto text = to_text(*one);
  CHECK_THAT(text, Catch::Contains("[4/0]  pointwise_fn"));
  CHECK_THAT(text, Catch::Contains("x is a Tensor f32 on cuda:0, size [8, 32], stride [32, 1]"));
  CHECK_THAT(text, Catch::Contains("act == 'relu'"));
  const auto j = to_json(*one);
  CHECK(j["units"][0]["kinds"]["tensor"] == 1);
  CHECK(j["units"][0]["constants"][0]["value"] == "'relu'");

  const auto dynamic = list_guards(read("reduce_overhead_dynamic"), std::nullopt);
  REQUIRE(dynamic.ok());
  const auto dynamic_text = to_text(*dynamic);
  CHECK_THAT(dynamic_text, Catch::Contains("x is a Tensor f32 on cuda:0, size [?, 256]"));
  CHECK_THAT(dynamic_text, Catch::Contains("2 <= x.size()[0]"));
}

TEST_CASE("the recompile check replays the six recompiles of graph_breaks", "[report][guards]") {
  const auto log = read("graph_breaks");
  const auto report = check_recompiles(log, std::nullopt);
  REQUIRE(report.ok());
  REQUIRE(report->recompiles.size() == 6);
  const auto j = to_json(*report);
  REQUIRE(j["recompiles"].size() == 6);
  for (const auto& c : j["recompiles"]) {
    INFO(c.dump());
    CHECK(c["match"] == true);
    CHECK(c["recorded"] == c["predicted"]);
  }
  CHECK_THAT(to_text(*report), Catch::Contains("6 replayed, 6 as recorded"));

  const auto frame4 = check_recompiles(log, id("4/2"));
  REQUIRE(frame4.ok());
  CHECK(frame4->recompiles.size() == 4);
  CHECK(check_recompiles(read("reduce_overhead_dynamic"), std::nullopt)->recompiles.empty());
}

namespace {

const RankedRecompileCause& cause_of(const RecompileReport& r, const std::string& source) {
  for (const auto& c : r.ranked) {
    if (c.cause.source == source) return c;
  }
  FAIL("no recompile cause on " << source);
  return r.ranked.front();
}

RecompileReport recompiles_of(const char* sample) {
  const auto log = read(sample);
  auto r = check_recompiles(log, std::nullopt);
  REQUIRE(r.ok());
  return std::move(*r);
}

}  // namespace

TEST_CASE("recompile causes: the tensor that changed, before and after, and the fix",
          "[report][guards][recompiles]") {
  const auto r = recompiles_of("corpus/hand_recompiles_tensor");
  REQUIRE(r.ranked.size() == 7);
  const auto& size = cause_of(r, "x.size(0)");
  CHECK(size.cause.kind == "tensor size");
  CHECK(size.cause.before == "8");
  CHECK(size.cause.after == "16");
  CHECK_THAT(size.cause.fix, Catch::StartsWith("torch._dynamo.mark_dynamic(x, 0)"));
  CHECK_THAT(size.cause.where, Catch::EndsWith("recompile_cases.py:26 in batch_size"));
  const auto& stride = cause_of(r, "x.stride(0)");
  CHECK(stride.cause.before == "32");
  CHECK(stride.cause.after == "1");
  CHECK_THAT(stride.cause.fix, Catch::Contains(".contiguous()"));
  const auto& grad = cause_of(r, "x");
  CHECK((grad.cause.kind == "dtype" || grad.cause.kind == "requires_grad" ||
         grad.cause.kind == "tensor rank"));
  CHECK(r.limit_hits.empty());
}

TEST_CASE("recompile causes: Python constants, globals and the values Dynamo made dynamic",
          "[report][guards][recompiles]") {
  const auto r = recompiles_of("corpus/hand_recompiles_python");
  const auto& n = cause_of(r, "n");
  CHECK(n.cause.kind == "python constant");
  CHECK(n.cause.before == "2");
  // The new compile has no guard on n: automatic dynamic made it a symbol, hint 3.
  CHECK_THAT(n.cause.after, Catch::StartsWith("3 (now dynamic: s"));
  const auto& act = cause_of(r, "act");
  CHECK(act.cause.before == "'relu'");
  CHECK(act.cause.after == "'gelu'");
  CHECK_THAT(act.cause.fix, Catch::Contains("hoist the branch on act"));
  CHECK(cause_of(r, "len(xs)").cause.after == "3");
  const auto& global = cause_of(r, "G['SCALE']");
  CHECK(global.cause.kind == "global constant");
  CHECK_THAT(global.cause.fix, Catch::StartsWith("hoist G['SCALE'] out of the traced function"));
  CHECK(cause_of(r, "bias").cause.kind == "None or not");
}

TEST_CASE("recompile causes: module attributes and global state, ranked by how often",
          "[report][guards][recompiles]") {
  const auto module = recompiles_of("corpus/hand_recompiles_module");
  REQUIRE(module.ranked.size() == 2);
  // self.alpha rejected both recompiles (0/1, and 0/0's entry again for 0/2): ranked first.
  CHECK(module.ranked[0].cause.source == "self.alpha");
  CHECK(module.ranked[0].count() == 2);
  CHECK(module.ranked[0].cause.before == "0.5");
  CHECK_THAT(module.ranked[0].cause.after, Catch::StartsWith("0.75 (now dynamic"));
  CHECK_THAT(module.ranked[0].cause.fix, Catch::Contains("register_buffer"));
  CHECK(module.ranked[1].cause.kind == "train/eval mode");
  CHECK(module.ranked[1].cause.after == "False");

  const auto global = recompiles_of("corpus/hand_recompiles_global_state");
  REQUIRE(global.ranked.size() == 3);
  CHECK(global.ranked[0].cause.kind == "global state");
  CHECK(global.ranked[0].cause.source == "grad_mode");

  // One recompile rejects several cache entries for one reason: counted once per recompile.
  const auto breaks = recompiles_of("graph_breaks");
  REQUIRE_FALSE(breaks.ranked.empty());
  CHECK(breaks.ranked[0].cause.kind == "dtype");
  CHECK(breaks.ranked[0].count() == 3);
  CHECK(cause_of(breaks, "___stack0").cause.kind == "value across a graph break");

  const auto j = to_json(breaks);
  CHECK(j.at("ranked").at(0).at("count") == 3);
  CHECK(j.at("ranked").at(0).at("before") == "Float");
  CHECK(j.at("limit_hits").empty());
  CHECK_THAT(to_text(breaks), Catch::Contains("3x dtype of x: Float -> Double  [4/2, 4/3, 4/4]"));
}

TEST_CASE("a recompile limit lifted to sys.maxsize is no limit", "[report][guards][recompiles]") {
  // Nine compiles of one frame, under the limit each run's Dynamo config gives: 8 (reached)
  // and sys.maxsize (tlparse's cache_hit_miss.log: it read as a negative limit, reached at once).
  for (const std::string limit : {"8", "9223372036854775807"}) {
    INFO("limit " << limit);
    std::string text;
    for (int k = 0; k < 9; ++k) {
      text +=
          "V1206 15:18:16.845000 1 torch/_dynamo/utils.py:1] {\"compilation_metrics\": "
          "{\"dynamo_config\": \"{\\\"recompile_limit\\\": " +
          limit + "}\"}, \"frame_id\": 0, \"frame_compile_id\": " + std::to_string(k) +
          ", \"attempt\": 0}\n";
    }
    const test::ScratchDir dir("recompile_limit");
    const auto log = trace::read_trace(dir.write("limit.log", text));
    REQUIRE(log.ok());
    REQUIRE(log->units().size() == 9);
    const auto r = check_recompiles(*log, std::nullopt);
    REQUIRE(r.ok());
    CHECK(r->limit_hits.size() == (limit == "8" ? 1u : 0u));
  }
}
