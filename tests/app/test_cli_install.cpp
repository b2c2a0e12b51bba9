#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh prefix per test run: parallel CTest processes must not install over each other.
fs::path scratch_prefix() {
  std::string tmpl = (fs::temp_directory_path() / "fxscope-install-XXXXXX").string();
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  return tmpl;
}

}  // namespace

TEST_CASE("an installed fxscope-cli finds the CUPTI library and the driver beside it", "[cli]") {
  const fs::path prefix = scratch_prefix();
  const auto installed =
      test::run_process(std::string(FXSCOPE_CMAKE) + " --install " + FXSCOPE_BUILD_DIR +
                        " --prefix " + prefix.string() + " --component runtime 2>&1");
  INFO(installed.output);
  REQUIRE(installed.status == 0);
  const fs::path cli = prefix / "bin" / "fxscope-cli";
  REQUIRE(fs::exists(cli));

  const auto version = test::run_process(cli.string() + " --version");
  CHECK(version.status == 0);
  if (version.output.find("no-cuda") != std::string::npos) {
    WARN("built without CUDA: only fxscope-cli is installed");
    fs::remove_all(prefix);
    return;
  }
  const fs::path lib = prefix / FXSCOPE_INSTALL_LIBDIR / "fxscope" / "libfxscope_cupti.so";
  const fs::path driver =
      prefix / FXSCOPE_INSTALL_LIBEXECDIR / "fxscope" / "fxscope_torch_driver.py";
  CHECK(fs::exists(lib));
  CHECK(fs::exists(driver));
  CHECK_THAT(version.output, Catch::Contains("cupti library: " + lib.string()));
  CHECK_THAT(version.output, Catch::Contains("torch driver: " + driver.string()));

  // `run` hands both to its child: a stand-in "python" (echo) prints the driver it was given, and
  // the missing records name the library that was injected.
  const fs::path work = prefix / "work";
  const auto run =
      test::run_process(cli.string() + " run " + test::sample("residual_mlp") +
                        " --mode eager --python /bin/echo --work-dir " + work.string() + " 2>&1");
  CHECK(run.status == 1);
  CHECK_THAT(run.output, Catch::Contains("was " + lib.string() + " loaded?"));
  CHECK_THAT(read_text(work / "driver.out"), Catch::StartsWith(driver.string() + " "));
  fs::remove_all(prefix);
}
