// fxscope-cli on a machine without CUDA: an LD_AUDIT module hides NVIDIA's libraries (NVRTC,
// cuBLASLt, CUPTI, cuDNN, the runtime and the driver) from the child. Reading a log needs none
// of them, so every command but `run` answers as it does with them; `run` says which library is
// missing and what to install, in one line.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;

namespace {

const std::string kHidden =
    std::string(
        "FXSCOPE_HIDDEN_LIBRARIES=libnvrtc,libcublas,libcupti,libcudnn,libcudart,libcuda.so "
        "LD_AUDIT=") +
    FXSCOPE_HIDE_LIBRARIES + " ";

test::ProcessResult without_cuda(const std::string& args) {
  return test::run_process(kHidden + test::cli(args + " 2>&1"));
}

test::ProcessResult with_cuda(const std::string& args) {
  return test::run_process(test::cli(args + " 2>&1"));
}

}  // namespace

TEST_CASE("without CUDA's libraries, summary, fuse, guards and export answer as with them",
          "[cli]") {
  const std::string mlp = test::sample("residual_mlp");
  const std::string breaks = test::sample("graph_breaks");
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("fxscope_no_cuda_" + std::to_string(::getpid()) + ".json"))
                              .string();
  for (const std::string& args : std::vector<std::string>{
           "--version", "summary " + mlp, "summary --json " + breaks, "fuse " + mlp + " --json",
           "guards " + breaks + " --unit 4/0 --input x=16x32:f32",
           "export " + mlp + " --format json -o " + out + " && cat " + out}) {
    INFO(args);
    const auto expected = with_cuda(args);
    REQUIRE(expected.status == 0);
    const auto r = without_cuda(args);
    CHECK(r.status == 0);
    CHECK(r.output == expected.output);
  }
  std::filesystem::remove(out);
}

TEST_CASE("without CUDA's libraries, run names each missing library and what to install", "[cli]") {
  const auto r = without_cuda("run " + test::sample("residual_mlp") + " --mode eager");
  if (r.output.find("built without CUDA") != std::string::npos) {
    WARN("this fxscope-cli was built without CUDA: nothing to load");
    return;
  }
  CHECK(r.status == 1);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  CHECK_THAT(r.output, Catch::StartsWith("fxscope-cli: the GPU run needs NVIDIA's CUDA libraries: "
                                         "libnvrtc.so."));
  CHECK_THAT(r.output, Catch::Contains("; libcublasLt.so."));
  CHECK_THAT(r.output, Catch::Contains("not found (NVRTC"));
  CHECK_THAT(r.output, Catch::Contains("not found (cuBLASLt"));
  CHECK_THAT(r.output, Catch::Contains("or PyTorch's nvidia-cublas wheel, or add the folder that "
                                       "holds libcublasLt.so."));
  CHECK_THAT(r.output, Catch::Contains("to LD_LIBRARY_PATH"));
}
