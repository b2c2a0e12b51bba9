#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "fxscope/report/rank_comparison.h"
#include "fxscope/report/rank_compile_time.h"
#include "fxscope/trace/log_locator.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("across ranks: the slowest rank and the phases that made it slowest",
          "[report][compile_time][ranks]") {
  const auto ranks = report::compile_time_across_ranks(test::sample("ranks_ddp"));
  REQUIRE(ranks.ok());
  REQUIRE(ranks->ranks.size() == 4);
  // Each rank's total is that rank's own compile-time report.
  for (const auto& r : ranks->ranks) {
    INFO(r.rank);
    CHECK(r.error.empty());
    auto log = trace::read_trace(r.path);
    REQUIRE(log.ok());
    CHECK(r.total_s == report::compile_time(*log).total_s);
  }
  REQUIRE(ranks->slowest.has_value());
  const auto& slow = ranks->ranks[*ranks->slowest];
  CHECK(slow.rank == 3);
  for (const auto& r : ranks->ranks) CHECK(r.total_s <= slow.total_s);
  CHECK(ranks->others_median_s == Approx(ranks->ranks[1].total_s));  // 7.24, 7.55, 7.89
  REQUIRE(ranks->gaps.size() >= 5);
  for (std::size_t i = 1; i < ranks->gaps.size(); ++i) {
    CHECK(ranks->gaps[i - 1].gap_s() >= ranks->gaps[i].gap_s());
    CHECK(ranks->gaps[i].gap_s() > 0);
  }
  // Rank 3 waited longest for its Triton compiles.
  CHECK(ranks->gaps.front().name == "async_compile.wait");

  const auto text = report::to_text(*ranks);
  CHECK_THAT(text, Catch::Contains("rank 3 compiled slowest"));
  CHECK_THAT(text, Catch::Contains("async_compile.wait  (wait for Triton compiles)"));
  const auto j = report::to_json(*ranks);
  CHECK(j.at("slowest_rank") == 3);
  REQUIRE(j.at("ranks").size() == 4);
  CHECK(j.at("ranks").at(3).at("error").is_null());
  CHECK(j.at("phase_gaps").at(0).at("name") == "async_compile.wait");
  CHECK(j.at("phase_gaps").at(0).at("gap_s").get<double>() == Approx(ranks->gaps[0].gap_s()));
}

TEST_CASE("across ranks: compare_ranks reads the same compile times from the logs it opens",
          "[report][compile_time][ranks]") {
  const auto alone = report::compile_time_across_ranks(test::sample("ranks_ddp"));
  const auto compared = report::compare_ranks(test::sample("ranks_ddp"));
  REQUIRE(alone.ok());
  REQUIRE(compared.ok());
  const auto& ranks = compared->compile_time;
  REQUIRE(ranks.ranks.size() == alone->ranks.size());
  for (std::size_t i = 0; i < ranks.ranks.size(); ++i) {
    INFO(ranks.ranks[i].rank);
    CHECK(ranks.ranks[i].rank == compared->ranks[i].rank);
    CHECK(ranks.ranks[i].total_s == alone->ranks[i].total_s);
  }
  REQUIRE(ranks.slowest == alone->slowest);
  CHECK(ranks.ranks[*ranks.slowest].rank == 3);
  CHECK(ranks.others_median_s == alone->others_median_s);
  REQUIRE(ranks.gaps.size() == alone->gaps.size());
  CHECK(ranks.gaps.front().name == alone->gaps.front().name);
}

TEST_CASE("across ranks: tlparse's multi-rank logs, one rank doing the compiling",
          "[report][compile_time][ranks]") {
  const auto ranks =
      report::compile_time_across_ranks(test::sample("public/tlparse/multi_rank_logs"));
  REQUIRE(ranks.ok());
  REQUIRE(ranks->slowest.has_value());
  CHECK(ranks->ranks[*ranks->slowest].rank == 3);
  REQUIRE_FALSE(ranks->gaps.empty());
  // Ranks 0 and 2 never ran it: the median of the others is 0 s.
  CHECK(ranks->gaps.front().name == "inductor_codecache_torch_key");
  CHECK(ranks->gaps.front().others_s == 0);
}

TEST_CASE("across ranks: a log that is not a directory of ranks is an error naming it",
          "[report][compile_time][ranks]") {
  const auto ranks = report::compile_time_across_ranks(test::sample("residual_mlp"));
  REQUIRE_FALSE(ranks.ok());
  CHECK_THAT(ranks.error().message, Catch::Contains("residual_mlp"));
}
