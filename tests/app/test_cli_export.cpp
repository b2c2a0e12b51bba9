#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

// A scratch file per test and process, so parallel CTest runs never share one.
std::string export_scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("fxscope_cli_export_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

test::ProcessResult export_to(const std::string& path, const std::string& args,
                              const std::string& out) {
  return test::run_process(test::cli("export " + path + " " + args + " -o " + out + " 2>&1"));
}

}  // namespace

TEST_CASE("export --format dot, svg and png of the residual MLP", "[cli][export]") {
  const std::string dot = export_scratch("mlp.dot");
  REQUIRE(export_to(test::sample("residual_mlp"), "--format dot --mode max-autotune", dot).status ==
          0);
  const std::string dot_text = slurp(dot);
  CHECK(dot_text.starts_with("digraph fxscope {"));
  CHECK_THAT(dot_text, Catch::Contains("mode max-autotune on H200"));

  const std::string svg = export_scratch("mlp.svg");
  REQUIRE(export_to(test::sample("residual_mlp"), "--format svg", svg).status == 0);
  const std::string svg_text = slurp(svg);
  CHECK(svg_text.starts_with("<?xml"));
  CHECK_THAT(svg_text, Catch::Contains("triton_poi_fused_add_erf_mul_0"));

  const std::string png = export_scratch("mlp.png");
  REQUIRE(export_to(test::sample("residual_mlp"), "--format png", png).status == 0);
  CHECK(slurp(png).substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  for (const auto& f : {dot, svg, png}) std::filesystem::remove(f);
}

TEST_CASE("export says it lays out a training step's thousands of nodes, and how long it took",
          "[cli][export]") {
  const std::string svg = export_scratch("resnet50_train.svg");
  const auto r = export_to(test::sample("corpus/tv_resnet50_train"), "--format svg", svg);
  if (r.output.find("built without Graphviz") != std::string::npos) return;
  REQUIRE(r.status == 0);
  // The forward and backward graphs, 4,412 nodes in all.
  CHECK_THAT(r.output,
             Catch::Contains("fxscope: laying out 4412 nodes with Graphviz dot for the svg\n"));
  CHECK_THAT(r.output, Catch::Contains("fxscope: laid out in "));
  CHECK(slurp(svg).starts_with("<?xml"));
  std::filesystem::remove(svg);
}

TEST_CASE("export --format json reloads: the CLI draws the exported file again", "[cli][export]") {
  const std::string json = export_scratch("breaks.json");
  REQUIRE(export_to(test::sample("graph_breaks"), "--format json --unit 0/0", json).status == 0);
  const auto doc = nlohmann::json::parse(slurp(json));
  CHECK(doc["format"] == "fxscope-graph");
  CHECK(doc["metadata"]["compile_id"] == "0/0");
  REQUIRE(doc["graphs"].size() == 2);
  const std::size_t post_grad_nodes = doc["graphs"][1]["graph"]["nodes"].size();

  const std::string again = export_scratch("breaks_again.json");
  REQUIRE(export_to(json, "--format json", again).status == 0);
  CHECK(slurp(again) == slurp(json));

  const std::string dot = export_scratch("breaks_from_json.dot");
  REQUIRE(export_to(json, "--format dot", dot).status == 0);
  const std::string dot_text = slurp(dot);
  std::size_t nodes = 0;
  for (auto at = dot_text.find(" [label="); at != std::string::npos;
       at = dot_text.find(" [label=", at + 1)) {
    ++nodes;
  }
  CHECK(nodes == post_grad_nodes);
  CHECK_THAT(dot_text, Catch::Contains("graph break at"));
  for (const auto& f : {json, again, dot}) std::filesystem::remove(f);
}

TEST_CASE("export --format chrome-trace: measured from --run-json, else predicted",
          "[cli][export]") {
  const std::string measured = export_scratch("measured.json");
  REQUIRE(export_to(test::sample("pointwise_chain"),
                    "--format chrome-trace --run-json " +
                        test::data("runs/pointwise_chain_pytorch_h200.json"),
                    measured)
              .status == 0);
  const auto run =
      nlohmann::json::parse(slurp(test::data("runs/pointwise_chain_pytorch_h200.json")));
  std::size_t kernels = 0;
  for (const auto& mode : run["modes"]) kernels += mode["kernels"].size();
  std::size_t events = 0;
  const auto trace = nlohmann::json::parse(slurp(measured));
  for (const auto& e : trace["traceEvents"]) {
    events += e["ph"] == "X" ? 1U : 0U;
  }
  CHECK(events == kernels);

  const std::string predicted = export_scratch("predicted.json");
  REQUIRE(export_to(test::sample("pointwise_chain"), "--format chrome-trace", predicted).status ==
          0);
  CHECK(nlohmann::json::parse(slurp(predicted))["otherData"]["predicted"] == true);
  for (const auto& f : {measured, predicted}) std::filesystem::remove(f);
}

TEST_CASE("export: bad input is one line and exit 1, bad usage exit 2", "[cli][export]") {
  const std::string out = export_scratch("bad.dot");
  auto r = export_to(test::sample("residual_mlp"), "--format dot --unit 7/7", out);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("no compile unit 7/7"));
  r = export_to(test::data("trace/random.bin"), "--format dot", out);
  CHECK(r.status == 1);
  r = export_to(test::sample("residual_mlp"),
                "--format chrome-trace --run-json " + test::data("trace/small.log"), out);
  CHECK(r.status == 1);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  r = export_to(test::sample("residual_mlp"), "--format gif", out);
  CHECK(r.status == 2);
  std::filesystem::remove(out);
}

#ifdef FXSCOPE_HAS_RENDER
TEST_CASE("export without Graphviz: svg and png are one line and exit 1, the rest still work",
          "[cli][export]") {
  // The LD_AUDIT module hides libgvc.so.6 from this child only, as on a GPU host without it.
  const std::string hidden =
      std::string("FXSCOPE_HIDDEN_LIBRARIES=libgvc.so LD_AUDIT=") + FXSCOPE_HIDE_LIBRARIES + " ";
  const auto run = [&](const std::string& args, const std::string& out) {
    return test::run_process(hidden + test::cli("export " + test::sample("residual_mlp") + " " +
                                                args + " -o " + out + " 2>&1"));
  };
  for (const std::string format : {"svg", "png"}) {
    INFO(format);
    const std::string out = export_scratch("hidden." + format);
    const auto r = run("--format " + format, out);
    CHECK(r.status == 1);
    CHECK(r.output == "fxscope-cli: " + format +
                          " export needs Graphviz (libgvc.so.6 not found): install graphviz, or "
                          "use --format dot\n");
    CHECK_FALSE(std::filesystem::exists(out));
  }
  for (const std::string format : {"dot", "json", "chrome-trace"}) {
    INFO(format);
    const std::string out = export_scratch("hidden_" + format);
    CHECK(run("--format " + format, out).status == 0);
    CHECK(std::filesystem::file_size(out) > 0);
    std::filesystem::remove(out);
  }
}
#endif
