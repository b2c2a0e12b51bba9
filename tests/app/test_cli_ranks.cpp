// `--rank N` and `summary DIR --all-ranks` as a user runs them on a directory of ranks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "sample_log_file.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using test::cli;
using test::ScratchDir;

TEST_CASE("cli: --rank reads that rank or names the ranks there", "[cli][ranks]") {
  const ScratchDir dir("cli_ranks");
  dir.copy(test::sample_log_file("pointwise_chain"), "dedicated_log_torch_trace_rank_0.log");
  dir.copy(test::sample_log_file("graph_breaks"), "dedicated_log_torch_trace_rank_1.log");

  const auto rank1 = test::run_process(cli("summary '" + dir.path() + "' --rank 1 --json"));
  REQUIRE(rank1.status == 0);
  CHECK_THAT(nlohmann::json::parse(rank1.output)["path"].get<std::string>(),
             Catch::EndsWith("dedicated_log_torch_trace_rank_1.log"));

  for (const std::string command :
       {"summary", "fuse", "guards", "export --format json -o /dev/null"}) {
    const auto missing =
        test::run_process(cli(command + " '" + dir.path() + "' --rank 4 2>&1 >/dev/null"));
    CHECK(missing.status == 1);
    CHECK_THAT(missing.output, Catch::Contains("no log of rank 4; the ranks here are 0, 1"));
  }

  const auto all = test::run_process(cli("summary '" + dir.path() + "' --all-ranks --json"));
  REQUIRE(all.status == 0);
  const auto json = nlohmann::json::parse(all.output);
  CHECK(json["ranks"].size() == 2);
  REQUIRE_FALSE(json["divergence"].empty());
  CHECK(json["divergence"][0]["groups"] == nlohmann::json::parse("[[0],[1]]"));

  const auto text = test::run_process(cli("summary '" + dir.path() + "' --all-ranks"));
  REQUIRE(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("divergences, most harmful first"));
}

TEST_CASE("compile-time --all-ranks names the slowest rank and its slowest phase", "[cli]") {
  const auto text =
      test::run_process(cli("compile-time " + test::sample("ranks_ddp") + " --all-ranks"));
  CHECK(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("rank 3 compiled slowest"));
  const auto json =
      test::run_process(cli("compile-time " + test::sample("ranks_ddp") + " --all-ranks --json"));
  REQUIRE(json.status == 0);
  const auto j = nlohmann::json::parse(json.output);
  CHECK(j.at("slowest_rank") == 3);
  CHECK(j.at("phase_gaps").at(0).at("name") == "async_compile.wait");
  // Not a directory of ranks: the error names it.
  const auto bad = test::run_process(
      cli("compile-time " + test::sample("residual_mlp") + " --all-ranks 2>&1 >/dev/null"));
  CHECK(bad.status == 1);
  CHECK_THAT(bad.output, Catch::Contains("residual_mlp"));
}
