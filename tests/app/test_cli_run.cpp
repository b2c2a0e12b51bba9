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

bool no_gpu_or_torch(const std::string& output) {
  return output.find("PyTorch is not installed") != std::string::npos ||
         output.find("no CUDA GPU is visible") != std::string::npos ||
         output.find("built without CUDA") != std::string::npos;
}

}  // namespace

TEST_CASE("run refuses an unknown backend and mode in one line", "[cli]") {
  auto r = run_cli(test::sample("residual_mlp") + " --backend tvm");
  CHECK(r.status == 1);
  CHECK(r.output == "fxscope-cli: --backend tvm: expected engine or pytorch\n");
  r = run_cli(test::sample("residual_mlp") + " --mode fast");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--mode fast: expected eager"));
}

TEST_CASE("run without Python says so in one line", "[cli]") {
  const auto r = run_cli(test::sample("residual_mlp") + " --python /nonexistent/python3");
  CHECK(r.status == 1);
  CHECK(test::line_count(r.output) == 1);
  const bool says = r.output.find("cannot start Python") != std::string::npos ||
                    r.output.find("built without CUDA") != std::string::npos;
  CHECK(says);
}

TEST_CASE("run without PyTorch or a GPU says which is missing, exit 1", "[cli]") {
  const auto r = run_cli(test::sample("residual_mlp") + " --backend pytorch --mode eager");
  if (r.status == 0) {
    WARN("PyTorch and a GPU are present: the refusal is not exercised here");
    return;
  }
  CHECK(r.status == 1);
  CHECK(test::line_count(r.output) == 1);
  CHECK(no_gpu_or_torch(r.output));
}

TEST_CASE("reduce-overhead kernels are recorded inside CUDA graphs and attributed", "[cuda]") {
  const auto r =
      run_cli(test::sample(kResidualMlp) + " --backend pytorch --mode reduce-overhead --json");
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

bool no_device(const std::string& output) {
  return output.find("no CUDA device") != std::string::npos ||
         output.find("built without CUDA") != std::string::npos;
}

TEST_CASE("the engine backend is the default and says in one line that no GPU is there", "[cli]") {
  const auto r = run_cli(test::sample("residual_mlp") + " --mode eager");
  if (r.status == 0) {
    WARN("a GPU is present: the refusal is not exercised here");
    return;
  }
  CHECK(r.status == 1);
  CHECK(test::line_count(r.output) == 1);
  CHECK(no_device(r.output));
  CHECK_THAT(r.output, Catch::StartsWith("fxscope-cli: "));
}

TEST_CASE("run refuses a bad --repeat or --ab before doing anything", "[cli]") {
  auto r = run_cli(test::sample("residual_mlp") + " --repeat 0");
  CHECK(r.status == 1);
  CHECK(r.output == "fxscope-cli: --repeat 0: expected 1 or more\n");
  r = run_cli(test::sample("residual_mlp") + " --ab default");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--ab default: expected two modes"));
  r = run_cli(test::sample("residual_mlp") + " --mode eager,fast");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("--mode eager,fast: expected eager"));
}

TEST_CASE("the engine backend prints the PyTorch backend's schema plus its own", "[cuda]") {
  const auto r = test::run_process(test::cli("run " + test::sample(kResidualMlp) +
                                             " --backend engine --mode all --repeat 3 --json"));
  if (r.status != 0) {
    WARN("skipped, no device: " + r.output);
    return;
  }
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["backend"] == "engine");
  CHECK(j["unit"] == "0/0");
  CHECK(j["coverage"]["ran"] == j["coverage"]["ops"]);
  REQUIRE(j["modes"].size() == 4);
  for (const auto& m : j["modes"]) {
    for (const char* key : {"total_us", "total_min_us", "total_max_us", "launches", "max_rel_err",
                            "peak_bytes", "kernels", "kernel_us", "attributed_share"}) {
      INFO(m["mode"] << " " << key);
      CHECK(m.contains(key));
    }
    REQUIRE(!m["kernels"].empty());
    for (const char* key : {"name", "group", "nodes", "us", "grid", "block"}) {
      CHECK(m["kernels"][0].contains(key));
    }
  }
}

// One fault costs one mode: each mode runs in a process of its own, so the illegal address
// planted in default's first kernel (FXSCOPE_PLANT_FAULT) leaves eager, reduce-overhead and
// max-autotune measured and compared.
TEST_CASE("a fault planted in one mode leaves the other three measured", "[cuda]") {
  const auto r = test::run_process(
      "FXSCOPE_PLANT_FAULT=default " +
      test::cli("run " + test::sample(kResidualMlp) + " --mode all --repeat 3 --json 2>&1"));
  if (r.status != 0 && no_device(r.output)) {
    WARN("skipped, no device: " + r.output);
    return;
  }
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find("{\n")));
  REQUIRE(j["modes"].size() == 4);
  for (const auto& m : j["modes"]) {
    INFO(m["mode"] << ": " << m["error"]);
    if (m["mode"] == "default") {
      CHECK(m["ran"] == false);
      const std::string error = m["error"];
      CHECK_THAT(error, Catch::Contains("illegal") && Catch::Contains("group ") &&
                            Catch::Contains("(kernel "));
      continue;
    }
    CHECK(m["ran"] == true);
    CHECK(m["total_us"].get<double>() > 0);
    CHECK(!m["kernels"].empty());
    if (m["mode"] != "eager") {
      REQUIRE(m["max_rel_err"].is_number());
      CHECK(m["flagged"] == false);
    }
  }
}
