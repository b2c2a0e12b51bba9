#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

const std::string kResidualMlp = "/residual_mlp/dedicated_log_torch_trace_ljqh8_c9.log";

test::ProcessResult run_cli(const std::string& args) {
  return test::run_process(test::cli("run " + args + " 2>&1"));
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool no_gpu_or_torch(const std::string& output) {
  return output.find("PyTorch is not installed") != std::string::npos ||
         output.find("no CUDA GPU is visible") != std::string::npos ||
         output.find("built without CUDA") != std::string::npos;
}

}  // namespace

TEST_CASE("run refuses an unknown backend and mode in one line", "[cli]") {
  auto r = run_cli(test::sample("residual_mlp") + " --backend tvm");
  CHECK(r.status == 1);
  CHECK(r.output == "fxscope-cli: --backend tvm: only the pytorch backend is built\n");
  r = run_cli(test::sample("residual_mlp") + " --mode fast");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--mode fast: expected eager"));
}

TEST_CASE("run without Python says so in one line", "[cli]") {
  const auto r = run_cli(test::sample("residual_mlp") + " --python /nonexistent/python3");
  CHECK(r.status == 1);
  CHECK(lines(r.output) == 1);
  const bool says = r.output.find("cannot start Python") != std::string::npos ||
                    r.output.find("built without CUDA") != std::string::npos;
  CHECK(says);
}

TEST_CASE("run without PyTorch or a GPU says which is missing, exit 1", "[cli]") {
  const auto r = run_cli(test::sample("residual_mlp") + " --mode eager");
  if (r.status == 0) {
    WARN("PyTorch and a GPU are present: the refusal is not exercised here");
    return;
  }
  CHECK(r.status == 1);
  CHECK(lines(r.output) == 1);
  CHECK(no_gpu_or_torch(r.output));
}

TEST_CASE("reduce-overhead kernels are recorded inside CUDA graphs and attributed", "[cuda]") {
  const auto r = run_cli(test::sample(kResidualMlp) + " --mode reduce-overhead --json");
  if (r.status != 0 && no_gpu_or_torch(r.output)) {
    WARN("skipped, no device: " + r.output);
    return;
  }
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  const auto& m = j["modes"][0];
  CHECK(m["mode"] == "reduce-overhead");
  CHECK(m["cuda_graph_launches"].get<double>() >= 3.0);
  CHECK(m["attributed_share"].get<double>() >= 0.95);
}
