// The corpus (sample_graphs/corpus/): real logs of real models, stored compressed. Every log
// listed in manifest.json is read the way a user opens it, and checked against what PyTorch
// itself counted while capturing it (expected.json beside the log).
#include <catch2/catch.hpp>

#include <cstddef>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::trace;

namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) FAIL("cannot open " << path);
  return nlohmann::json::parse(in);
}

nlohmann::json manifest() {
  return read_json(test::sample("corpus") + "/manifest.json");
}

std::size_t count_if(const nlohmann::json& logs, const std::string& key, const nlohmann::json& v) {
  std::size_t n = 0;
  for (const auto& entry : logs)
    if (entry.at(key) == v) ++n;
  return n;
}

}  // namespace

TEST_CASE("corpus: every log reads cleanly and matches PyTorch's own counters", "[trace][corpus]") {
  const auto logs = manifest().at("logs");
  REQUIRE(logs.size() >= 40);
  for (const auto& entry : logs) {
    const std::string name = entry.at("name");
    INFO(name);
    const std::string folder = test::sample("corpus/" + name);
    const auto expected = read_json(folder + "/expected.json");
    auto read = read_trace(folder + "/" + entry.at("log").get<std::string>());
    if (!read) {
      FAIL_CHECK(read.error().message);
      continue;
    }
    const TraceLog& log = *read;
    CHECK(log.stats().bad_lines == 0);
    CHECK_FALSE(log.truncated());
    CHECK_FALSE(log.units().empty());

    // PyTorch's unique_graphs counts the graphs its backend compiled: one whose compile failed
    // (Mixtral's routing, `Backend compiler exception`) is in the log, and not in the count.
    std::size_t with_graph = 0;
    for (const auto& unit : log.units())
      if (unit.dynamo_graph() != nullptr && !unit.failed()) ++with_graph;
    CHECK(with_graph == expected.at("unique_graphs").get<std::size_t>());
    // PyTorch counts a graph break only where Dynamo split the graph there; a break that ended a
    // frame Dynamo then left to run eagerly lands in counters["unimplemented"] instead, yet its
    // dynamo_graph_break_reason artifact is in the log. So where that counter is empty the
    // counts agree exactly; elsewhere every break PyTorch counted is in the log at least as often.
    std::map<std::string, std::size_t> breaks;
    for (const auto& gb : log.graph_breaks()) breaks[gb.message] += gb.count;
    const auto counted =
        expected.at("graph_break_reasons").get<std::map<std::string, std::size_t>>();
    const auto& counters = expected.at("counters");
    if (!counters.contains("unimplemented") || counters.at("unimplemented").empty()) {
      CHECK(log.graph_break_total() == expected.at("graph_breaks_total").get<std::size_t>());
      CHECK(breaks == counted);
    } else {
      CHECK(log.graph_break_total() >= expected.at("graph_breaks_total").get<std::size_t>());
      for (const auto& [message, count] : counted) {
        INFO(message);
        CHECK(breaks[message] >= count);
      }
    }
    CHECK(log.recompiles().size() == expected.at("recompiles").get<std::size_t>());
  }
}

TEST_CASE("corpus: the mix of models, dtypes, modes and recompiles it promises",
          "[trace][corpus]") {
  const auto logs = manifest().at("logs");
  CHECK(count_if(logs, "family", "torchvision") >= 15);
  CHECK(count_if(logs, "family", "transformers") >= 15);
  CHECK(count_if(logs, "family", "hand") >= 4);
  CHECK(count_if(logs, "dtype", "float32") >= 1);
  CHECK(count_if(logs, "dtype", "bfloat16-autocast") >= 1);
  CHECK(count_if(logs, "dtype", "float16-autocast") >= 1);
  CHECK(count_if(logs, "training", true) >= 5);
  CHECK(count_if(logs, "channels_last", true) >= 2);
  CHECK(count_if(logs, "dynamic", true) >= 2);
  CHECK(count_if(logs, "mode", "default") >= 1);
  CHECK(count_if(logs, "mode", "reduce-overhead") >= 1);
  CHECK(count_if(logs, "mode", "max-autotune") >= 8);
  CHECK(count_if(logs, "mode", "max-autotune-no-cudagraphs") >= 1);
  std::set<std::string> kinds;
  for (const auto& entry : logs)
    for (const auto& kind : entry.at("recompile_kinds")) kinds.insert(kind.get<std::string>());
  CHECK(kinds.size() >= 15);
}
