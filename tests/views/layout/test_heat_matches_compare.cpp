// The app and the CLI attribute a run alike: on every saved H200 run (tests/data/runs), in every
// mode it measured, each cluster of the graph's heat overlay has exactly the time `fxscope-cli
// compare --json` gives the plan's groups drawn in it.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "fxscope/report/run_result.h"
#include "layout/canvas_graph.h"
#include "layout/heat_overlay.h"
#include "run_process.h"
#include "views_test_support.h"

namespace fxscope::test {
namespace {

// The sample a saved run was made from: its file name up to the backend.
std::string sample_of_run(const std::string& file) {
  for (const char* backend : {"_pytorch", "_engine"}) {
    if (const auto at = file.find(backend); at != std::string::npos) return file.substr(0, at);
  }
  return {};
}

// Checks every mode of the saved run FILE; returns how many clusters had measured time.
std::size_t check_run(const std::string& file) {
  INFO(file);
  const std::string path = data("runs/" + file);
  const auto run = report::read_run_result(path);
  REQUIRE(run);
  const auto log = load_sample(sample_of_run(file));
  std::size_t unit = log->summary.units.size();
  for (std::size_t u = 0; u < log->summary.units.size(); ++u) {
    if (log->summary.units[u].compile_id == run->unit) unit = u;
  }
  REQUIRE(unit < log->summary.units.size());
  const bool engine = run->backend == "engine";
  std::size_t measured = 0;
  for (const report::RunMode& mode : run->modes) {
    INFO("mode " << mode.mode);
    const auto parsed = fusion::parse_mode(mode.mode);
    REQUIRE(parsed);
    // fxscope's layered layout: the layout is not what is checked, and dot is slow on ResNet-50.
    const auto graph = views::build_canvas_graph(
        *log, {unit, views::GraphLevel::kAten, views::GroupSource::kFxscope, *parsed}, 0);
    REQUIRE(graph->problem.empty());
    const views::HeatOverlay heat = views::build_heat_overlay(*graph, &*run);
    REQUIRE(heat.mode == &mode);

    const auto process = run_process(
        cli("compare " + sample(sample_of_run(file)) + " --unit " + run->unit + " --mode " +
            mode.mode + (engine ? " --engine-json " : " --pytorch-json ") + path + " --json"));
    REQUIRE(process.status == 0);
    const auto compared = nlohmann::json::parse(process.output);
    const auto& rows = compared["groups"];
    const char* column = engine ? "engine_us" : "pytorch_us";
    // The rows start with the plan's groups in its order (then the rows no group holds).
    REQUIRE(rows.size() >= graph->run_groups.size());
    for (std::size_t g = 0; g < graph->groups.size(); ++g) {
      const views::CanvasGroup& cluster = graph->groups[g];
      double cli_us = 0;
      for (const std::size_t kernel : cluster.plan_groups) {
        REQUIRE(rows[kernel]["group"] == graph->run_groups[kernel].names.front());
        cli_us += rows[kernel][column].get<double>();
      }
      INFO("cluster " << cluster.name);
      if (!heat.groups[g].measured) {
        CHECK(cli_us == 0.0);
        continue;
      }
      CHECK(heat.groups[g].us == Approx(cli_us).epsilon(1e-9).margin(1e-9));
      ++measured;
    }
  }
  return measured;
}

// ResNet-50's and GPT-2's runs have test cases of their own, each within the time one may take.
bool large_run(const std::string& file) {
  return file.starts_with("resnet50_") || file.starts_with("gpt2_12layer_");
}

}  // namespace

TEST_CASE("The heat overlay gives each group compare's time on the small saved runs",
          "[views][heat]") {
  qt_app();
  std::size_t runs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data("runs"))) {
    const std::string file = entry.path().filename().string();
    if (!file.ends_with("_h200.json") || large_run(file)) continue;
    CHECK(check_run(file) > 0);
    ++runs;
  }
  CHECK(runs >= 5);
}

TEST_CASE("The heat overlay gives each group compare's time on ResNet-50's saved run",
          "[views][heat]") {
  qt_app();
  CHECK(check_run("resnet50_engine_h200.json") > 100);
}

TEST_CASE("The heat overlay gives each group compare's time on GPT-2's saved run",
          "[views][heat]") {
  qt_app();
  CHECK(check_run("gpt2_12layer_engine_h200.json") > 100);
}

}  // namespace fxscope::test
