#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

using test::cli;

TEST_CASE("fuse --json gives groups, Inductor's groups, agreement and predictions", "[cli]") {
  const auto r = test::run_process(
      cli("fuse " + test::sample("pointwise_chain") + " --mode default --unit 0/0 --json"));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["units"].size() == 1);
  const auto& u = j["units"][0];
  CHECK(u["groups"].size() == 3);
  CHECK(u["inductor_groups"].size() == 3);
  CHECK(u["agreement"][0]["exact"] == 3);
  CHECK(u["predicted"]["default"]["launches"] == 3);
}

TEST_CASE("fuse names a bad mode, device or unit in one line and exits 1", "[cli]") {
  for (const std::string args :
       {"--mode fastest", "--device TPU", "--unit 7/7", "--device-set bw=-1"}) {
    INFO(args);
    const auto r =
        test::run_process(cli("fuse " + test::sample("residual_mlp") + " " + args + " 2>&1"));
    CHECK(r.status == 1);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}

TEST_CASE("fuse --cuda-source writes each generated kernel of the plan as a file", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fxscope-cuda-source-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto r = test::run_process(cli("fuse " + test::sample("residual_mlp") +
                                       " --mode default --cuda-source " + dir.string() + " 2>&1"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  // residual_mlp's default plan: two GEMMs in cuBLAS, the generated rest in files.
  REQUIRE(!files.empty());
  CHECK(r.output.find("wrote " + std::to_string(files.size()) + " generated kernels") !=
        std::string::npos);
  for (const auto& f : files) {
    INFO(f.string());
    CHECK(f.extension() == ".cu");
    CHECK(f.filename().string().starts_with("0-0_g"));
    std::ifstream in(f);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.starts_with("// fxscope: generated for [0/0]"));
    CHECK(text.find("// launch: fx_") != std::string::npos);
    CHECK(text.find("extern \"C\" __global__") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("fuse --cuda-source into a path that cannot be a folder is one line, exit 1", "[cli]") {
  const auto r = test::run_process(
      cli("fuse " + test::sample("residual_mlp") + " --cuda-source /proc/version/kernels 2>&1"));
  CHECK(r.status == 1);
  CHECK(r.output.find("/proc/version/kernels: cannot create the folder") != std::string::npos);
}
