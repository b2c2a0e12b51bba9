#include <catch2/catch.hpp>

#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

// The driver as fxscope-cli starts it; stderr is kept, since refusals are printed there.
test::ProcessResult driver(const std::string& args) {
  return test::run_process("python3 " + std::string(FXSCOPE_SOURCE_TORCH_DRIVER) + " " + args +
                           " 2>&1");
}

}  // namespace

TEST_CASE("the driver refuses a unit without an fx_graph_runnable artifact", "[gpu]") {
  const auto r = driver(test::sample("residual_mlp") + "/dedicated_log_torch_trace_ljqh8_c9.log" +
                        " --unit 3/0");
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Catch::Contains("compile unit 3/0 has no fx_graph_runnable (units that "
                                       "have one: 0/0)"));
}

TEST_CASE("the driver refuses an unknown mode and a missing log in one line", "[gpu]") {
  auto r = driver("nowhere.log");
  CHECK(r.status == 3);
  CHECK(r.output == "fxscope_torch_driver: nowhere.log: no such log file\n");
  r = driver("nowhere.log --mode fast");
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Catch::Contains("--mode fast: expected eager"));
}

TEST_CASE("without PyTorch or a GPU the driver says which is missing", "[gpu]") {
  const auto r = driver(test::sample("pointwise_chain") +
                        "/dedicated_log_torch_trace_xhlrow6l.log --mode eager --repeats 1");
  if (r.status == 0) {
    WARN("PyTorch and a GPU are present: the refusal is not exercised here");
    return;
  }
  CHECK(r.status == 3);
  const bool says = r.output.find("PyTorch is not installed") != std::string::npos ||
                    r.output.find("no CUDA GPU is visible") != std::string::npos;
  CHECK(says);
}
