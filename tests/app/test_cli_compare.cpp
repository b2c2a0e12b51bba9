#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

test::ProcessResult compare(const std::string& args) {
  return test::run_process(test::cli("compare " + args));
}

// Unit 0/0 of SAMPLE in MODE against its saved H200 run (tests/data/runs).
std::string saved(const std::string& sample, const std::string& mode) {
  return test::sample(sample) + " --unit 0/0 --mode " + mode + " --pytorch-json " +
         test::data("runs/" + sample + "_pytorch_h200.json");
}

}  // namespace

TEST_CASE("compare --json on a saved H200 run gives groups and totals", "[cli]") {
  // The engine column reads the same schema; until a saved engine run exists, the same file.
  const auto r = compare(saved("residual_mlp", "reduce-overhead") + " --engine-json " +
                         test::data("runs/residual_mlp_pytorch_h200.json") + " --json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["unit"] == "0/0");
  CHECK(j["mode"] == "reduce-overhead");
  REQUIRE(j["groups"].size() == 3);
  double sum = 0;
  for (const auto& g : j["groups"]) sum += g["pytorch_us"].get<double>();
  CHECK(sum == Approx(j["totals"]["pytorch"]["kernel_us"].get<double>()));
  CHECK(j["totals"]["pytorch"]["device"] == "NVIDIA H200");
  CHECK(j["totals"]["pytorch"]["attributed_share"] == 1.0);
  CHECK(j["totals"]["predicted"]["total_us"].get<double>() > 0.0);
  CHECK(j["totals"]["engine"]["present"] == true);
}

TEST_CASE("compare without an engine run says why its column is empty", "[cli]") {
  const auto r = compare(saved("graph_breaks", "default") + " 2>&1");
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("[0/0] mode default: predicted on H200"));
  CHECK_THAT(r.output, Catch::Contains("engine: not built/no GPU ("));
  CHECK_THAT(r.output, Catch::Contains("pytorch: NVIDIA H200, torch 2.11.0+cu130"));
  CHECK_THAT(r.output, Catch::Contains("triton_per_fused"));
}

TEST_CASE("compare refuses bad input in one line", "[cli]") {
  auto r = compare(test::sample("residual_mlp") + " --mode default 2>&1");
  CHECK(r.status == 2);  // --unit is required
  r = compare(test::sample("residual_mlp") + " --unit 0/0 --pytorch-json /nonexistent.json 2>&1");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::StartsWith("fxscope-cli: /nonexistent.json"));
  r = compare(test::sample("residual_mlp") + " --unit 7/0 --pytorch-json " +
              test::data("runs/residual_mlp_pytorch_h200.json") + " 2>&1");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("7/0"));
  r = compare(saved("residual_mlp", "fast") + " 2>&1");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--mode fast: expected eager"));
}
