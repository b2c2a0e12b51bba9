#include <catch2/catch.hpp>

#include <vector>

#include "fxscope/inductor/logical_line_reader.h"

using namespace fxscope::inductor;

namespace {

std::vector<LogicalLine> lines_of(std::string_view source) {
  std::vector<LogicalLine> out;
  LogicalLineReader reader(source);
  while (auto line = reader.next()) out.push_back(*line);
  return out;
}

}  // namespace

TEST_CASE("logical lines join brackets and strings, keep numbers and indents", "[inductor]") {
  const auto lines = lines_of(
      "a = 1\n"
      "\n"
      "    f(x,\n"
      "      y)  # note (\n"
      "k = g('n', '''\n"
      "body ( ' \"\n"
      "''', s=\"a)\")\n"
      "  # comment\n"
      "z = 'unclosed\n"
      "w = 2\\\n"
      "  + 3\n");
  REQUIRE(lines.size() == 6);
  CHECK(lines[0].text == "a = 1");
  CHECK(lines[1].text == "f(x,\n      y)  # note (");
  CHECK(lines[1].line == 3);
  CHECK(lines[1].indent == 4);
  CHECK(lines[2].line == 5);
  CHECK(lines[2].first_string == "\nbody ( ' \"\n");
  CHECK(lines[2].first_string_line == 5);
  CHECK(lines[3].text == "# comment");
  CHECK(lines[3].line == 8);
  CHECK(lines[4].text == "z = 'unclosed");  // a one-quote string ends with its line
  CHECK(lines[5].line == 10);
  CHECK(lines[5].text == "w = 2\\\n  + 3");
  for (const auto& l : lines) CHECK(l.unterminated == Unterminated::no);
}

TEST_CASE("logical lines report a source that ends inside a bracket or string", "[inductor]") {
  const auto in_string = lines_of("k = f('''\nsource");
  REQUIRE(in_string.size() == 1);
  CHECK(in_string[0].unterminated == Unterminated::string);
  CHECK(in_string[0].first_string == "\nsource");
  const auto in_bracket = lines_of("f(a,\n b");
  REQUIRE(in_bracket.size() == 1);
  CHECK(in_bracket[0].unterminated == Unterminated::bracket);
  CHECK(lines_of("").empty());
  CHECK(lines_of("\n \n\t\n").empty());
}
