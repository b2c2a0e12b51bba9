#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::trace;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A scratch log built from TEXT, removed when the test ends. The name is unique per process and
// per log: CTest runs these tests in parallel processes, and rewriting a file another process has
// mapped kills that process with SIGBUS.
class TempLog {
 public:
  explicit TempLog(const std::string& text)
      : path_((std::filesystem::temp_directory_path() /
               ("fxscope_test_trace_" + std::to_string(::getpid()) + "_" +
                std::to_string(next_id_++) + ".log"))
                  .string()) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempLog() { std::remove(path_.c_str()); }
  TempLog(const TempLog&) = delete;
  TempLog& operator=(const TempLog&) = delete;
  const std::string& path() const { return path_; }

 private:
  static inline int next_id_ = 0;
  std::string path_;
};

}  // namespace

TEST_CASE("bad inputs are one-line errors naming the path", "[trace]") {
  SECTION("missing path") {
    const auto log = read_trace("/nonexistent/fxscope_trace");
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().message, Catch::StartsWith("/nonexistent/fxscope_trace: no such file"));
    CHECK_THAT(log.error().message, Catch::Contains("expected a TORCH_TRACE log"));
  }
  SECTION("empty file") {
    const auto log = read_trace(test::data("trace/empty.log"));
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().message, Catch::Contains("empty.log: empty file"));
  }
  SECTION("random bytes") {
    const auto log = read_trace(test::data("trace/random.bin"));
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().message, Catch::Contains("random.bin: not a TORCH_TRACE log"));
  }
  SECTION("a directory without logs") {
    const auto log = read_trace(test::data("trace/no_logs"));
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().message,
               Catch::Contains("no_logs: directory holds no dedicated_log_torch_trace*.log"));
  }
  SECTION("a rank that is not there") {
    const auto log = read_trace(test::data("trace/ranks"), {.rank = 3});
    REQUIRE_FALSE(log.ok());
    CHECK_THAT(log.error().message, Catch::Contains("no log of rank 3; the ranks here are 0, 1"));
  }
  SECTION("each message is one line") {
    for (const char* path : {"trace/empty.log", "trace/random.bin", "trace/no_logs"}) {
      const auto log = read_trace(test::data(path));
      REQUIRE_FALSE(log.ok());
      CHECK(log.error().message.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("a directory reads its log, and with ranks rank 0 unless asked", "[trace]") {
  const auto sample = read_trace(test::sample("pointwise_chain"));
  REQUIRE(sample.ok());
  CHECK_THAT(sample->path(), Catch::EndsWith("dedicated_log_torch_trace_xhlrow6l.log"));
  CHECK_FALSE(sample->rank().has_value());

  const auto rank0 = read_trace(test::data("trace/ranks"));
  REQUIRE(rank0.ok());
  CHECK(rank0->rank() == 0);
  CHECK_THAT(rank0->path(), Catch::EndsWith("dedicated_log_torch_trace_rank_0_aaaa.log"));
  REQUIRE(rank0->other_logs().size() == 1);
  CHECK_THAT(rank0->other_logs()[0], Catch::EndsWith("dedicated_log_torch_trace_rank_1_bbbb.log"));

  const auto rank1 = read_trace(test::data("trace/ranks"), {.rank = 1});
  REQUIRE(rank1.ok());
  CHECK(rank1->rank() == 1);
  CHECK(rank1->units().size() == 1);
}

TEST_CASE("a cut-down log: what is there is read", "[trace]") {
  const auto log = read_trace(test::data("trace/small.log"));
  REQUIRE(log.ok());
  CHECK(log->warnings().empty());
  CHECK_FALSE(log->truncated());
  REQUIRE(log->units().size() == 1);
  const CompileUnit& unit = log->units()[0];
  CHECK(unit.user_frame()->line == 46);
  REQUIRE(unit.dynamo_graph() != nullptr);
  CHECK(unit.dynamo_graph()->payload.line_count == 17);
  CHECK_FALSE(unit.metrics.has_value());
  CHECK(log->stats().lines == 127);
  CHECK(log->stats().payload_lines == 99);
  CHECK(log->stats().records == 28);
}

TEST_CASE("a log without a final newline is whole", "[trace]") {
  const auto log = read_trace(test::data("trace/no_final_newline.log"));
  REQUIRE(log.ok());
  CHECK(log->warnings().empty());
  CHECK_FALSE(log->truncated());
  CHECK(log->units().at(0).dynamo_graph()->payload.line_count == 17);
}

TEST_CASE("a log cut in the middle of a payload says so", "[trace]") {
  const auto log = read_trace(test::data("trace/truncated_payload.log"));
  REQUIRE(log.ok());
  CHECK(log->truncated());
  REQUIRE(log->warnings().size() == 1);
  CHECK_THAT(log->warnings()[0].where, Catch::EndsWith("truncated_payload.log:110"));
  CHECK_THAT(log->warnings()[0].message, Catch::Contains("cut short"));
  // What was read is still there.
  const Artifact* graph = log->units().at(0).dynamo_graph();
  REQUIRE(graph != nullptr);
  CHECK(graph->payload.line_count == 6);
}

TEST_CASE("a log cut inside its last envelope says so", "[trace]") {
  const std::string text = slurp(test::data("trace/small.log"));
  const auto graph_line = text.find("] {\"dynamo_output_graph\"");
  TempLog cut(text.substr(0, graph_line + 40));
  const auto log = read_trace(cut.path());
  REQUIRE(log.ok());
  CHECK(log->truncated());
  CHECK(log->stats().bad_lines == 1);
  CHECK(log->units().at(0).dynamo_graph() == nullptr);
}

TEST_CASE("one broken JSON line is a warning naming it, the rest is read", "[trace]") {
  const auto log = read_trace(test::data("trace/broken_line.log"));
  REQUIRE(log.ok());
  CHECK(log->stats().bad_lines == 1);
  REQUIRE(log->warnings().size() == 1);
  CHECK_THAT(log->warnings()[0].where, Catch::EndsWith("broken_line.log:30"));
  CHECK_THAT(log->warnings()[0].message, Catch::StartsWith("broken JSON envelope"));
  REQUIRE(log->units().size() == 1);
  CHECK(log->units()[0].stack.empty());  // the dynamo_start line was the broken one
  CHECK(log->units()[0].dynamo_graph() != nullptr);
}

TEST_CASE("broken lines of every sort are counted, never fatal", "[trace]") {
  std::string text = slurp(test::data("trace/small.log"));
  const auto first_event = text.find("{\"chromium_event\": {}");
  text.replace(first_event, 1, "[");  // a chromium event that is no longer an object
  text = "\tan orphan payload line\nnot a record at all\n" + text;
  TempLog broken(text);
  const auto log = read_trace(broken.path());
  REQUIRE(log.ok());
  CHECK(log->stats().bad_lines == 3);
  REQUIRE(log->warnings().size() == 3);
  CHECK_THAT(log->warnings()[0].message, Catch::Contains("no record before it"));
  CHECK_THAT(log->warnings()[1].where, Catch::EndsWith(":2"));
  CHECK_THAT(log->warnings()[1].message, Catch::Contains("expected a glog prefix"));
  CHECK_THAT(log->warnings()[2].where, Catch::EndsWith(":3"));
  CHECK(log->units().size() == 1);
}

TEST_CASE("verify_all_payloads catches a payload edited in the middle", "[trace]") {
  std::string text = slurp(test::data("trace/small.log"));
  // The first chromium event's payload; the last record is checked anyway, this one is not.
  const auto at = text.find("\n\t{") + 2;
  text.replace(at, 1, "[");
  TempLog edited(text);
  const auto quick = read_trace(edited.path());
  REQUIRE(quick.ok());
  // Without the md5 check, the event that no longer reads is still counted, once for the log.
  REQUIRE(quick->warnings().size() == 1);
  CHECK_THAT(quick->warnings()[0].message,
             Catch::Contains("1 chromium_event payload is no JSON event"));
  const auto checked = read_trace(edited.path(), {.verify_all_payloads = true});
  REQUIRE(checked.ok());
  REQUIRE(checked->warnings().size() == 2);
  CHECK_THAT(checked->warnings()[0].message, Catch::Contains("md5"));
}

TEST_CASE("the log stays valid after a move", "[trace]") {
  auto read = read_trace(test::data("trace/small.log"));
  REQUIRE(read.ok());
  TraceLog log = std::move(read).value();
  TraceLog moved = std::move(log);
  CHECK(moved.units().at(0).dynamo_graph()->payload.text().find("class GraphModule") == 0);
}

TEST_CASE("unknown kinds are counted in the stats", "[trace]") {
  const auto log = read_trace(test::sample("pointwise_chain"));
  REQUIRE(log.ok());
  const auto& kinds = log->stats().kinds;
  const auto find = [&](const std::string& name) {
    return std::find_if(kinds.begin(), kinds.end(),
                        [&](const KindCount& k) { return k.kind == name; });
  };
  REQUIRE(find("chromium_event") != kinds.end());
  CHECK(find("chromium_event")->count == 113);
  CHECK(find("chromium_event")->understood);
  CHECK(find("dynamo_start")->understood);
  CHECK(find("artifact:inductor_post_grad_graph")->understood);
  REQUIRE(find("artifact:inductor_provenance_tracking_kernel_stack_traces") != kinds.end());
  CHECK_FALSE(find("artifact:inductor_provenance_tracking_kernel_stack_traces")->understood);
  CHECK(log->stats().unknown_kinds() == 11);
  std::size_t total = 0;
  for (const auto& k : kinds) total += k.count;
  CHECK(total == log->stats().records);
  CHECK(log->stats().records == 145);
}
