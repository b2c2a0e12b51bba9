#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/graph_break.h"
#include "fxscope/trace/json_scan.h"
#include "fxscope/trace/log_locator.h"
#include "fxscope/trace/log_scanner.h"
#include "fxscope/trace/md5.h"
#include "fxscope/trace/payload.h"
#include "fxscope/trace/recompile.h"
#include "fxscope/trace/stack_frame.h"
#include "samples.h"

using namespace fxscope::trace;

TEST_CASE("compile ids print and parse as Dynamo writes them", "[trace]") {
  CHECK(CompileId{0, 1, 0, -1}.str() == "0/1");
  CHECK(CompileId{0, 1, 2, -1}.str() == "0/1_2");
  CHECK(CompileId{4, 0, 0, 3}.str() == "!3/4/0");
  CHECK(CompileId{-1, -1, 0, 3}.str() == "!3");
  for (const char* s : {"0/1", "12/3_1", "!3/4/0", "!3"}) CHECK(CompileId::parse(s)->str() == s);
  CHECK_FALSE(CompileId::parse("4").has_value());
  CHECK_FALSE(CompileId::parse("a/b").has_value());
  CHECK_FALSE(CompileId::parse("1/2_x").has_value());
  CHECK(CompileId::parse("1/2_1")->same_compile(*CompileId::parse("1/2")));
  CHECK_FALSE(CompileId::parse("1/2")->same_compile(*CompileId::parse("1/3")));
}

TEST_CASE("the envelope head comes from the text, skipping meta keys", "[trace]") {
  const auto kind = [](std::string_view json) -> std::optional<std::string_view> {
    const auto head = scan_envelope(json);
    return head ? std::optional(head->kind) : std::nullopt;
  };
  CHECK(kind(R"({"chromium_event": {}, "frame_id": 0})") == "chromium_event");
  CHECK(kind(R"({"str": ["a\"]b", 0]})") == "str");
  CHECK(kind(R"({"frame_id": 0})") == "");
  CHECK(kind("{}") == "");
  CHECK_FALSE(kind(R"({"a": {"b": [1, 2}})").has_value());
  CHECK_FALSE(kind(R"({"a": "unterminated})").has_value());
  CHECK_FALSE(kind(R"({"a": 1} trailing)").has_value());
  CHECK_FALSE(kind(R"({"a": 1,})").has_value());
  CHECK_FALSE(kind(R"({"a" 1})").has_value());
  CHECK_FALSE(kind("").has_value());

  const auto head =
      scan_envelope(R"({"frame_id": 4, "attempt": 1, "artifact": {"name": "x"}, "rank": 0})");
  REQUIRE(head.has_value());
  CHECK(head->kind == "artifact");
  CHECK(head->body == R"({"name": "x"})");
  CHECK(head->id.frame_id == 4);
  CHECK(head->id.attempt == 1);
  CHECK(scan_envelope(R"({"a": 1, "frame_id": 2, "frame_compile_id": 3})")->id.str() == "2/3");
  CHECK_FALSE(scan_envelope(R"({"a": 1})")->id.valid());
}

TEST_CASE("object members are visited in order until the visitor stops", "[trace]") {
  std::vector<std::string> seen;
  CHECK(for_each_member(R"({"a": [1, {"x": "}"}], "b": "s", "c": null})",
                        [&](std::string_view key, std::string_view value) {
                          seen.push_back(std::string(key) + "=" + std::string(value));
                          return key != "b";
                        }));
  CHECK(seen == std::vector<std::string>{R"(a=[1, {"x": "}"}])", R"(b="s")"});
}

TEST_CASE("strings end at the first quote after an even run of backslashes", "[trace]") {
  const auto value_of = [](std::string_view json) {
    std::string out;
    const bool sound = for_each_member(json, [&](std::string_view, std::string_view value) {
      out = value;
      return false;
    });
    return sound ? out : std::string("<unsound>");
  };
  CHECK(value_of(R"({"a": "x\\"})") == R"("x\\")");    // an escaped backslash, then the end
  CHECK(value_of(R"({"a": "x\"}"})") == R"("x\"}")");  // an escaped quote is inside
  CHECK(value_of(R"({"a": "\\\"\\"})") == R"("\\\"\\")");
  CHECK(value_of(R"({"a": ""})") == R"("")");
  CHECK(value_of(R"({"a": "x\"})") == "<unsound>");  // the only quote is escaped
  CHECK(value_of(R"({"a": "\\)") == "<unsound>");
}

TEST_CASE("glog prefixes are stripped, other lines are not records", "[trace]") {
  CHECK(envelope_json("V1129 12:42:26.033000 458 torch/x.py:276] {\"a\": 1}\r") == "{\"a\": 1}");
  CHECK(envelope_json("[rank0]:V1129 12:42:26.033000 458 x.py:1] {\"a\": 1}") == "{\"a\": 1}");
  CHECK(envelope_json("plain text").empty());
  CHECK(envelope_json("V1129 x.py:1] not json").empty());
}

TEST_CASE("the scanner splits records and strips one TAB per payload line", "[trace]") {
  const std::string text = "P] {\"a\": 1}\n\tline one\n\t\tindented\n\nP] {\"b\": 2}";
  LogScanner scanner(text);
  RawRecord r;
  REQUIRE(scanner.next(r));
  CHECK(r.line == 1);
  CHECK(r.json == "{\"a\": 1}");
  CHECK(r.payload.first_line == 2);
  CHECK(r.payload.line_count == 2);
  CHECK(r.payload.text() == "line one\n\tindented");
  REQUIRE(scanner.next(r));
  CHECK(r.line == 5);
  CHECK(r.payload.empty());
  CHECK(r.payload.text().empty());
  CHECK_FALSE(scanner.next(r));
  CHECK(scanner.lines() == 5);
  CHECK(scanner.payload_lines() == 2);
}

TEST_CASE("the scanner given the text in parts yields what it yields given it whole", "[trace]") {
  // A real log handed over in prefixes, as while it is decompressed: cut points fall inside
  // envelopes, inside payloads and right after newlines.
  const auto located = locate_log(fxscope::test::sample("graph_breaks"), 0);
  REQUIRE(located.ok());
  std::ifstream in(located->path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE(text.size() > 1'000'000);
  std::vector<RawRecord> whole;
  LogScanner all(text);
  for (RawRecord r; all.next(r);) whole.push_back(r);
  REQUIRE(whole.size() > 100);

  for (const std::size_t step : {std::size_t{4093}, std::size_t{65536}, std::size_t{700'001}}) {
    INFO(step);
    LogScanner parts;
    std::vector<RawRecord> got;
    for (std::size_t end = 0; end < text.size();) {
      end = std::min(end + step, text.size());
      const bool is_whole = end == text.size();
      parts.extend(std::string_view(text).substr(0, end), is_whole);
      for (RawRecord r; parts.next(r);) got.push_back(r);
    }
    REQUIRE(got.size() == whole.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO(i);
      CHECK(got[i].line == whole[i].line);
      CHECK(got[i].whole == whole[i].whole);
      CHECK(got[i].payload.raw.data() == whole[i].payload.raw.data());
      CHECK(got[i].payload.raw.size() == whole[i].payload.raw.size());
      CHECK(got[i].payload.line_count == whole[i].payload.line_count);
    }
    CHECK(parts.lines() == all.lines());
    CHECK(parts.payload_lines() == all.payload_lines());
  }
}

TEST_CASE("md5 matches PyTorch's has_payload", "[trace]") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("The quick brown fox jumps over the lazy dog") ==
        "9e107d9d372bb6826bd81d3542a419d6");
  CHECK(md5_hex(std::string(200, 'a')) == "887f30b43b2867f4a9accceee7d16e6c");
}

TEST_CASE("tracebacks: frames with code, carets skipped, stops at the end", "[trace]") {
  const auto stack = parse_traceback(
      "  File \"/a/b.py\", line 3, in f\n"
      "    x = g()\n"
      "        ^^^\n"
      "  File \"/usr/lib/python3.12/site-packages/t.py\", line 9, in g\n"
      "\n"
      "  File \"/not/read.py\", line 1, in h\n");
  REQUIRE(stack.size() == 2);
  CHECK(stack[0].file == "/a/b.py");
  CHECK(stack[0].line == 3);
  CHECK(stack[0].function == "f");
  CHECK(stack[0].code == "x = g()");
  CHECK(stack[1].code.empty());
  CHECK(stack[1].is_library());
  CHECK_FALSE(stack[0].is_library());
  CHECK(innermost_user_frame(stack) == &stack[0]);
  CHECK(innermost_user_frame({}) == nullptr);
}

TEST_CASE("plain-text recompile reasons: several, each with its id", "[trace]") {
  const auto reasons = parse_recompile_reasons(
      "0/1: tensor 'x' size mismatch at index 0. expected 8, actual 16\n"
      "0/0: mode == 'eval'                 # if self.mode == 'eval':  # m.py:3 in f\n"
      "User stack trace:\n"
      "  File \"/m.py\", line 3, in f\n"
      "    if self.mode == 'eval':");
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0].failed_id.str() == "0/1");
  CHECK(reasons[0].guard == reasons[0].text);
  CHECK(reasons[1].failed_id.str() == "0/0");
  CHECK(reasons[1].guard == "mode == 'eval'");
  REQUIRE(reasons[1].user_stack.size() == 1);
  CHECK(reasons[1].user_stack[0].code == "if self.mode == 'eval':");
  CHECK(parse_recompile_reasons("[\"1/0: ___stack0 == 0\"]")[0].text == "___stack0 == 0");
  CHECK(parse_recompile_reasons("[broken json").size() == 1);
}

TEST_CASE("a graph break payload missing most parts still parses", "[trace]") {
  const GraphBreak gb = parse_graph_break("Graph break in user code at C:\\m.py:12\nsomething");
  CHECK(gb.file == "C:\\m.py");
  CHECK(gb.line == 12);
  CHECK(gb.reason == "something");
  CHECK(gb.gb_code.empty());
  CHECK(gb.user_stack.empty());
  CHECK(parse_graph_break("").reason.empty());
}

TEST_CASE("rank numbers come from the file name", "[trace]") {
  CHECK(rank_of("dedicated_log_torch_trace_rank_3_ab12.log") == 3);
  CHECK_FALSE(rank_of("dedicated_log_torch_trace_ab12.log").has_value());
  Payload none;
  CHECK(none.text().empty());
}

TEST_CASE("a recompile reason cut short after its stack header is still read", "[trace]") {
  // Found by fuzzing: a reader that looks one past the end of the entry throws here.
  const auto plain = parse_recompile_reasons("1/0: User stack trace:");
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].user_stack.empty());
  const auto listed = parse_recompile_reasons("[\"2/1:User stack trace:\"\n]");
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].user_stack.empty());
}
