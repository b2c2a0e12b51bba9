#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

// `run --from-work-dir`: a run saved on the H200 attributed again here, with no GPU and no Python.

namespace {

const std::string kWorkDir = "runs/gpt2_2layer_max-autotune_h200_work_dir";

test::ProcessResult run_saved(const std::string& flags) {
  return test::run_process(test::cli("run " + test::sample("gpt2_2layer") + " --from-work-dir " +
                                     test::data(kWorkDir) + " " + flags + " 2>&1"));
}

bool built_without_cuda(const test::ProcessResult& r) {
  if (r.output.find("built without CUDA") == std::string::npos) return false;
  WARN("built without CUDA: no pytorch backend to attribute a saved run");
  return true;
}

}  // namespace

TEST_CASE("run --from-work-dir attributes a saved H200 run as JSON", "[cli]") {
  const auto r = run_saved("--json");
  if (built_without_cuda(r)) return;
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output, nullptr, false);
  REQUIRE(j.is_object());
  CHECK(j["backend"] == "pytorch");
  CHECK(j["unit"] == "0/0");
  REQUIRE(j["modes"].size() == 1);
  const auto& m = j["modes"][0];
  CHECK(m["mode"] == "max-autotune");
  CHECK(m["launches"].get<double>() == Approx(21.0));
  CHECK(m["attributed_share"].get<double>() == Approx(1.0));
  CHECK(m["kernels"].size() == 19);
}

TEST_CASE("run --from-work-dir prints the table and writes the Chrome trace", "[cli]") {
  std::string dir = (std::filesystem::temp_directory_path() / "fxscope-run-saved-XXXXXX").string();
  REQUIRE(mkdtemp(dir.data()) != nullptr);
  const std::string trace = dir + "/kernels.json";
  const auto r = run_saved("--mode max-autotune --chrome-trace " + trace);
  if (!built_without_cuda(r)) {
    REQUIRE(r.status == 0);
    CHECK_THAT(r.output, Catch::Contains("max-autotune"));
    CHECK_THAT(r.output, Catch::Contains("100.0%"));
    CHECK_THAT(r.output, Catch::Contains("_scaled_dot_product_efficient_attention"));
    std::ifstream in(trace);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    REQUIRE(j.is_object());
    // Process and stream names, then the first repeat's 21 kernels.
    std::size_t launches = 0;
    for (const auto& e : j["traceEvents"]) launches += e["ph"] == "X" ? 1U : 0U;
    CHECK(launches == 21);
    CHECK(j["traceEvents"].size() == 23);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("run --from-work-dir names what is wrong in one line", "[cli]") {
  const auto missing = test::run_process(
      test::cli("run " + test::sample("gpt2_2layer") + " --from-work-dir /nonexistent/run 2>&1"));
  if (built_without_cuda(missing)) return;
  CHECK(missing.status == 1);
  CHECK(
      missing.output ==
      "fxscope-cli: /nonexistent/run: not a work dir (expected the folder `run --work-dir` saved: "
      "driver.out, cupti.jsonl, trace/)\n");
  const auto other_mode = run_saved("--mode default");
  CHECK(other_mode.status == 1);
  CHECK_THAT(other_mode.output, Catch::Contains("--mode default: the saved run has max-autotune"));
  const auto other_unit = run_saved("--unit 1/0");
  CHECK(other_unit.status == 1);
  CHECK_THAT(other_unit.output, Catch::Contains("the run is of unit 0/0, not 1/0"));
  CHECK(run_saved("--backend engine").status == 1);
  CHECK(run_saved("--keep-work-dir").status == 1);
  // The saved run already says whether it used TF32.
  const auto tf32 = run_saved("--allow-tf32");
  CHECK(tf32.status == 1);
  CHECK_THAT(tf32.output, Catch::Contains("--allow-tf32 and --import do not apply"));
  const auto imports = run_saved("--import my_ops");
  CHECK(imports.status == 1);
  CHECK_THAT(imports.output, Catch::Contains("--import do not apply"));
}

TEST_CASE("run --allow-tf32 is the pytorch backend's: the engine refuses it in one line", "[cli]") {
  const auto r = test::run_process(
      test::cli("run " + test::sample("residual_mlp") + " --backend engine --allow-tf32 2>&1"));
  if (built_without_cuda(r)) return;
  CHECK(r.status == 1);
  CHECK(r.output ==
        "fxscope-cli: --allow-tf32: the engine runs convolutions and GEMMs in full FP32; the "
        "option is the pytorch backend's\n");
}

TEST_CASE("run --import is the pytorch backend's: the engine refuses it in one line", "[cli]") {
  const auto r = test::run_process(
      test::cli("run " + test::sample("residual_mlp") + " --backend engine --import my_ops 2>&1"));
  if (built_without_cuda(r)) return;
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("fxscope-cli: --import: the engine runs the graph's ops "
                                       "itself"));
}
