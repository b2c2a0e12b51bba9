#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

namespace fs = std::filesystem;

// Runs `run` with a stand-in "python" (echo) and TMPDIR pointing at a fresh folder, so the run's
// temp folder is the only thing that can appear there.
struct EchoRun {
  fs::path tmp;
  test::ProcessResult result;
};

EchoRun echo_run(const std::string& flags) {
  std::string tmpl = (fs::temp_directory_path() / "fxscope-workdir-XXXXXX").string();
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  EchoRun r{tmpl, {}};
  r.result = test::run_process("TMPDIR=" + tmpl + " " +
                               test::cli("run " + test::sample("residual_mlp") +
                                         " --mode eager --python /bin/echo " + flags + " 2>&1"));
  return r;
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for (auto it = fs::directory_iterator(dir); it != fs::directory_iterator(); ++it) ++n;
  return n;
}

bool built_without_cuda(const std::string& output) {
  return output.find("built without CUDA") != std::string::npos;
}

}  // namespace

TEST_CASE("run deletes its temp folder when done even when it fails", "[cli]") {
  const EchoRun r = echo_run("");
  CHECK(r.result.status == 1);
  if (!built_without_cuda(r.result.output)) {
    CHECK_THAT(r.result.output, Catch::Contains("cannot read the CUPTI records"));
  }
  CHECK(entries(r.tmp) == 0);
  fs::remove_all(r.tmp);
}

TEST_CASE("run --keep-work-dir keeps the temp folder and names it", "[cli]") {
  const EchoRun r = echo_run("--keep-work-dir");
  CHECK(r.result.status == 1);
  if (built_without_cuda(r.result.output)) {
    WARN("built without CUDA: run has no temp folder");
    fs::remove_all(r.tmp);
    return;
  }
  REQUIRE(entries(r.tmp) == 1);
  const fs::path kept = fs::directory_iterator(r.tmp)->path();
  CHECK_THAT(kept.filename().string(), Catch::StartsWith("fxscope-run-"));
  CHECK_THAT(r.result.output, Catch::Contains("fxscope-cli: keeping " + kept.string()));
  CHECK(fs::exists(kept / "driver.out"));
  fs::remove_all(r.tmp);
}
