#include <catch2/catch.hpp>

#include "fxscope/core/text.h"

using namespace fxscope;

TEST_CASE("split_top_level keeps parenthesised symbolic dims together", "[core]") {
  const auto parts = text::split_top_level("s77, (s77//2), 64", ", ");
  REQUIRE(parts.size() == 3);
  CHECK(parts[0] == "s77");
  CHECK(parts[1] == "(s77//2)");
  CHECK(parts[2] == "64");
}

TEST_CASE("split_top_level ignores separators inside quotes and brackets", "[core]") {
  const auto parts = text::split_top_level("'a, b', [1, 2], f(x, y)", ", ");
  REQUIRE(parts.size() == 3);
  CHECK(parts[0] == "'a, b'");
  CHECK(parts[1] == "[1, 2]");
  CHECK(parts[2] == "f(x, y)");
}

TEST_CASE("numbers parse strictly", "[core]") {
  CHECK(text::parse_int("42") == 42);
  CHECK(text::parse_int("-3") == -3);
  CHECK_FALSE(text::parse_int("4x").has_value());
  CHECK_FALSE(text::parse_int("").has_value());
  CHECK(text::parse_double("0.5") == 0.5);
  CHECK(text::parse_double("-inf") == -std::numeric_limits<double>::infinity());
  CHECK_FALSE(text::parse_double("abc").has_value());
}

TEST_CASE("for_each_line numbers lines from 1 and handles a missing final newline", "[core]") {
  std::vector<std::pair<std::string, std::size_t>> lines;
  text::for_each_line("a\nbb\nc", [&](std::string_view l, std::size_t n) {
    lines.emplace_back(std::string(l), n);
  });
  REQUIRE(lines.size() == 3);
  CHECK(lines[1].first == "bb");
  CHECK(lines[2].second == 3);
}

TEST_CASE("identifiers and dotted names as the logs print them", "[core]") {
  CHECK(text::is_identifier("_x1"));
  CHECK(text::is_identifier("l_self_modules_linear1_parameters_weight_"));
  CHECK_FALSE(text::is_identifier("1x"));
  CHECK_FALSE(text::is_identifier(""));
  CHECK(text::is_dotted_name("torch.ops.aten.mm.default"));
  CHECK_FALSE(text::is_dotted_name("torch..ops"));
  CHECK_FALSE(text::is_dotted_name("torch.ops."));
}

TEST_CASE("an identifier is found only where it stands whole", "[text]") {
  CHECK(text::contains_identifier("2*s0 + 1", "s0"));
  CHECK(text::contains_identifier("s0", "s0"));
  CHECK_FALSE(text::contains_identifier("2*s01 + 1", "s0"));
  CHECK_FALSE(text::contains_identifier("us0", "s0"));
  CHECK(text::contains_identifier("us0 + s0", "s0"));  // the second stands whole
  CHECK_FALSE(text::contains_identifier("s0", ""));
}
