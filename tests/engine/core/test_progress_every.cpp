// A long loop's progress lines: none before the first mark, one per mark passed, and the closing
// line with the total; nothing at all without a sink.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "fxscope/core/progress_every.h"

using fxscope::core::ProgressEvery;

TEST_CASE("progress lines come at the marks and once at the end", "[core]") {
  std::vector<std::string> lines;
  const auto sink = [&](const std::string& line) { lines.push_back(line); };
  SECTION("a mark far away: only the closing line") {
    ProgressEvery every(sink, 4, "steps tuned", 3600.0);
    for (std::size_t n = 1; n <= 4; ++n) every.done(n);
    every.finish();
    REQUIRE(lines.size() == 1);
    CHECK(lines.front().starts_with("4 of 4 steps tuned ("));
    CHECK(lines.front().ends_with(" s)"));
  }
  SECTION("every mark passed: a line per item, then the closing one") {
    ProgressEvery every(sink, 3, "kernels compiled", 0.0);
    every.done(1);
    every.done(2);
    every.finish();
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].starts_with("1 of 3 kernels compiled"));
    CHECK(lines[1].starts_with("2 of 3 kernels compiled"));
    CHECK(lines[2].starts_with("3 of 3 kernels compiled"));
  }
  SECTION("no sink: silent") {
    ProgressEvery every({}, 2, "steps", 0.0);
    every.done(1);
    every.finish();
    CHECK(lines.empty());
  }
}
