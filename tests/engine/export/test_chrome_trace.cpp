#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "fxscope/export/chrome_trace.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/report/run_result.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::size_t complete_events(const nlohmann::json& trace, std::size_t pid) {
  std::size_t count = 0;
  for (const auto& e : trace["traceEvents"]) count += e["ph"] == "X" && e["pid"] == pid ? 1U : 0U;
  return count;
}

}  // namespace

TEST_CASE("Chrome trace of a real H200 run: one event per kernel of each mode", "[export]") {
  auto run = report::read_run_result(test::data("runs/residual_mlp_pytorch_h200.json"));
  REQUIRE(run.ok());
  const nlohmann::json trace = exporting::chrome_trace_from_run(*run);
  REQUIRE(run->modes.size() == 4);
  for (std::size_t p = 0; p < run->modes.size(); ++p) {
    const auto& mode = run->modes[p];
    CHECK(complete_events(trace, p) == mode.kernels.size());
    double last_end = 0;
    double sum = 0;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] != "X" || e["pid"] != p) continue;
      // Laid end to end: no overlap, no gap.
      CHECK(e["ts"].get<double>() == Approx(last_end));
      last_end = e["ts"].get<double>() + e["dur"].get<double>();
      sum += e["dur"].get<double>();
    }
    CHECK(sum == Approx(mode.kernel_us).epsilon(0.01));
  }
  bool named = false;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 1) {
      CHECK_THAT(e["args"]["name"].get<std::string>(), Catch::StartsWith("measured default on"));
      named = true;
    }
  }
  CHECK(named);
}

TEST_CASE("without a run, the Chrome trace is the plan's predicted kernels", "[export]") {
  auto log = trace::read_trace(test::sample("pointwise_chain"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"", fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  const nlohmann::json trace = exporting::predicted_chrome_trace(*planned);
  const auto& graph = planned->report.graphs.at(0);
  CHECK(complete_events(trace, 0) == graph.fusion.ours.groups.size());
  double sum = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    CHECK(e["cat"] == "predicted");
    CHECK(e["args"]["predicted"] == true);
    sum += e["dur"].get<double>();
  }
  CHECK(sum == Approx(graph.ours.total_us));
  CHECK(trace["otherData"]["predicted"] == true);
  CHECK_THAT(trace["traceEvents"][0]["args"]["name"].get<std::string>(),
             Catch::Contains("predicted default on H200"));
}
