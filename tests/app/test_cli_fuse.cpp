#include <catch2/catch.hpp>

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
