#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::string guards(const std::string& args) {
  return test::cli("guards " + test::sample("graph_breaks") + " " + args);
}

}  // namespace

TEST_CASE("guards with an input names the first failing guard in Dynamo's words", "[cli]") {
  const auto r = test::run_process(guards("--unit 4/0 --input x=16x32:f32"));
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("frame 4  pointwise_fn  (cache up to 4/0)"));
  CHECK_THAT(r.output,
             Catch::Contains("4/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"));
  CHECK_THAT(r.output, Catch::Contains("=> recompiles"));
}

TEST_CASE("guards --json says which cache entry an input reuses", "[cli]") {
  const auto r =
      test::run_process(guards("--unit 4/4 --input x=16x32:f32 --const act=relu --json"));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["frames"].size() == 1);
  const auto& frame = j["frames"][0];
  CHECK(frame["reused"] == "4/1");
  CHECK(frame["recompiles"] == false);
  REQUIRE(frame["entries"].size() == 4);
  CHECK(frame["entries"][0]["reason"] == "act == 'gelu'");
  CHECK(frame["entries"][3]["reused"] == true);
  CHECK(j["input"]["tensors"][0]["sizes"] == nlohmann::json({16, 32}));
  CHECK(j["input"]["constants"][0]["value"] == "'relu'");
}

TEST_CASE("guards --check-recompiles --json replays every recorded recompile", "[cli]") {
  const auto r = test::run_process(guards("--check-recompiles --json"));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["recompiles"].size() == 6);
  for (const auto& c : j["recompiles"]) {
    INFO(c.dump());
    CHECK(c["match"] == true);
    CHECK(c["recorded"] == c["predicted"]);
    CHECK_FALSE(c["compile_id"].get<std::string>().empty());
  }
  CHECK(j["recompiles"][2]["compile_id"] == "4/1");
  CHECK(j["recompiles"][2]["predicted"][0] ==
        "4/0: tensor 'x' size mismatch at index 0. expected 8, actual 16");

  const auto text = test::run_process(guards("--check-recompiles"));
  REQUIRE(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("6 replayed, 6 as recorded"));
}

TEST_CASE("guards without an input lists what would make each unit recompile", "[cli]") {
  const auto r = test::run_process(guards(""));
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("[4/0]  pointwise_fn"));
  CHECK_THAT(r.output,
             Catch::Contains("x is a Tensor f32 on cuda:0, size [8, 32], stride [32, 1]"));
  CHECK_THAT(r.output, Catch::Contains("act == 'relu'"));

  const auto j = test::run_process(guards("--unit 4/1 --json"));
  REQUIRE(j.status == 0);
  const auto listing = nlohmann::json::parse(j.output);
  REQUIRE(listing["units"].size() == 1);
  CHECK(listing["units"][0]["tensors"][0]["sizes"] == nlohmann::json::parse("[null, 32]"));
}

TEST_CASE("a bad spec or unknown unit is one line naming it, exit 1", "[cli]") {
  const std::pair<const char*, const char*> cases[] = {
      {"--input x=16xq:f32", "x=16xq:f32"},
      {"--const act", "act"},
      {"--unit 9/9 --input x=16x32:f32", "9/9"},
      {"--unit 9/9", "9/9"},
      {"--unit four --input x=16x32:f32", "four"},
      {"--input x=1:f32 --input x=2:f32", "repeats a name"},
  };
  for (const auto& [args, named] : cases) {
    INFO(args);
    const auto r = test::run_process(guards(std::string(args) + " 2>&1"));
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains(named));
    CHECK(test::line_count(r.output) == 1);
  }
  const auto missing = test::run_process(test::cli("guards /does/not/exist --input x=1:f32 2>&1"));
  CHECK(missing.status == 1);
  CHECK_THAT(missing.output, Catch::Contains("/does/not/exist"));
}

TEST_CASE("the recompile check with an input is a usage error", "[cli]") {
  const auto r = test::run_process(guards("--check-recompiles --input x=1:f32 2>&1"));
  // CLI11 reports usage errors with its own codes, never 0 or the bad-input 1.
  CHECK(r.status != 0);
  CHECK(r.status != 1);
  CHECK_THAT(r.output, Catch::Contains("excludes"));
}
