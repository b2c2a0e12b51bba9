#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "fxscope/gpu/torch_run.h"
#include "samples.h"

using namespace fxscope;

namespace {

namespace fs = std::filesystem;

// A fresh scratch folder named after its test (parallel test runs must not share one).
struct ScratchDir {
  explicit ScratchDir(const std::string& name) {
    std::string tmpl = (fs::temp_directory_path() / ("fxscope-" + name + "-XXXXXX")).string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file) << text;
  }
  std::string str() const { return path.string(); }

  fs::path path;
};

const std::string kDriverOut =
    R"({"torch_version":"2.11.0","device":"NVIDIA H200","unit":"0/0","modes":[)"
    R"({"mode":"default","repeats":1,"range":"fxscope:default:",)"
    R"("total_us":{"median":12.5,"min":12.0,"max":14.0}}]})"
    "\n";

// One repeat of residual_mlp's default mode: cuBLAS for both GEMMs, then Inductor's epilogue.
const std::string kRecords =
    R"({"kind":"marker","flag":"start","id":1,"ts":0,"name":"fxscope:default:0","domain":""})"
    "\n"
    R"({"kind":"kernel","start":200,"end":1200,"name":"nvjet_sm90_tst_a","stream":7})"
    "\n"
    R"({"kind":"kernel","start":1300,"end":2300,"name":"nvjet_sm90_tst_b","stream":7})"
    "\n"
    R"({"kind":"kernel","start":2400,"end":3400,"name":"triton_poi_fused_add_addmm_gelu_mul_0"})"
    "\n"
    R"({"kind":"marker","flag":"end","id":1,"ts":5000,"name":"","domain":""})"
    "\n";

}  // namespace

TEST_CASE("a saved work dir is attributed again without the driver", "[gpu]") {
  const ScratchDir dir("work-dir-ok");
  dir.write("driver.out", "compile noise\n" + kDriverOut);
  dir.write("cupti.jsonl", kRecords);
  fs::create_directories(dir.path / "trace");
  auto run = gpu::attribute_work_dir(test::sample("residual_mlp"), dir.str(), "0/0");
  REQUIRE(run);
  CHECK(run->unit == "0/0");
  REQUIRE(run->modes.size() == 1);
  const auto& m = run->modes[0];
  CHECK(m.total_us == 12.5);
  CHECK(m.launches == Approx(3.0));
  CHECK(m.attributed_share() == Approx(1.0));
  REQUIRE(m.kernels.size() == 3);
  CHECK(m.kernels[1].nodes == std::vector<std::string>{"mm_default"});
}

TEST_CASE("the driver's TF32 setting reaches the run's JSON, and is absent where it said none",
          "[gpu]") {
  const ScratchDir dir("work-dir-tf32");
  dir.write("cupti.jsonl", kRecords);
  fs::create_directories(dir.path / "trace");
  const std::string log = test::sample("residual_mlp");
  // A driver output without the flag says nothing (PyTorch's defaults: TF32 convolutions on).
  dir.write("driver.out", kDriverOut);
  auto before = gpu::attribute_work_dir(log, dir.str(), "0/0");
  REQUIRE(before);
  CHECK_FALSE(before->allow_tf32.has_value());
  CHECK_FALSE(report::to_json(*before).contains("allow_tf32"));
  std::string with = kDriverOut;
  with.replace(with.find(R"("modes")"), 7, R"("allow_tf32":false,"modes")");
  dir.write("driver.out", with);
  auto now = gpu::attribute_work_dir(log, dir.str(), "0/0");
  REQUIRE(now);
  REQUIRE(now->allow_tf32.has_value());
  CHECK_FALSE(*now->allow_tf32);
  CHECK(report::to_json(*now).at("allow_tf32") == false);
}

TEST_CASE("a work dir that lacks a file is refused with the file's name", "[gpu]") {
  const ScratchDir dir("work-dir-missing");
  const std::string log = test::sample("residual_mlp");
  const auto error_of = [&](const std::string& unit = {}) {
    auto run = gpu::attribute_work_dir(log, dir.str(), unit);
    REQUIRE_FALSE(run);
    return run.error().message;
  };
  CHECK_THAT(gpu::attribute_work_dir(log, dir.str() + "/nothing").error().message,
             Catch::StartsWith(dir.str() + "/nothing: not a work dir"));
  CHECK_THAT(error_of(), Catch::StartsWith(dir.str() + "/driver.out: missing"));
  dir.write("driver.out", "");
  dir.write("driver.err", "Traceback\nRuntimeError: CUDA out of memory\n");
  CHECK(error_of() == dir.str() +
                          "/driver.out: empty, the PyTorch driver printed no result (driver.err: "
                          "RuntimeError: CUDA out of memory)");
  dir.write("driver.out", kDriverOut);
  CHECK_THAT(error_of(), Catch::StartsWith(dir.str() + "/cupti.jsonl: missing"));
  dir.write("cupti.jsonl", kRecords);
  CHECK_THAT(error_of(), Catch::StartsWith(dir.str() + "/trace: missing"));
  fs::create_directories(dir.path / "trace");
  CHECK(error_of("1/0") == dir.str() + "/driver.out: the run is of unit 0/0, not 1/0");
  dir.write("cupti.jsonl", "not json\n");
  CHECK_THAT(error_of(), Catch::StartsWith(dir.str() + "/cupti.jsonl line 1:"));
  dir.write("cupti.jsonl", kRecords);
  dir.write("driver.out", "Traceback: boom\n");
  CHECK_THAT(error_of(), Catch::StartsWith(dir.str() + "/driver.out: "));
  CHECK(gpu::attribute_work_dir(dir.str() + "/no.log", dir.str()).error().message.find("no.log") !=
        std::string::npos);
}

TEST_CASE("a real H200 work dir of gpt2_2layer in max-autotune is attributed in full", "[gpu]") {
  // Saved by `run --work-dir` on the H200 and trimmed to max-autotune (tests/data/runs/README.md).
  // Its GEMMs run as Triton templates only the driver's own compile names; the attention kernel
  // of the second layer went unattributed when the walk followed the captured (default) plan.
  auto run = gpu::attribute_work_dir(test::sample("gpt2_2layer"),
                                     test::data("runs/gpt2_2layer_max-autotune_h200_work_dir"));
  REQUIRE(run);
  CHECK(run->device == "NVIDIA H200");
  REQUIRE(run->modes.size() == 1);
  const auto& m = run->modes[0];
  CHECK(m.mode == "max-autotune");
  CHECK(m.repeats == 20);
  CHECK(m.total_us == Approx(674.784).epsilon(1e-4));
  CHECK(m.launches == Approx(21.0));
  CHECK(m.cuda_graph_launches == Approx(21.0));
  CHECK(m.kernels.size() == 19);
  CHECK(m.attributed_share() == Approx(1.0));
  // The attention kernel of each layer, on that layer's node.
  std::vector<std::string> attention;
  for (const auto& k : m.kernels) {
    if (k.name.rfind("fmha_cutlassF", 0) != 0) continue;
    CHECK(k.calls == 1.0);
    CHECK(k.group == "torch.ops.aten._scaled_dot_product_efficient_attention.default");
    REQUIRE(k.nodes.size() == 1);
    attention.push_back(k.nodes[0]);
  }
  CHECK(attention == std::vector<std::string>{"_scaled_dot_product_efficient_attention",
                                              "_scaled_dot_product_efficient_attention_1"});
  const auto templates = std::count_if(m.kernels.begin(), m.kernels.end(), [](const auto& k) {
    return k.name.rfind("triton_tem_", 0) == 0 && !k.nodes.empty();
  });
  CHECK(templates == 4);
}

TEST_CASE("a real H200 work dir of resnet50 in max-autotune puts each library kernel on its node",
          "[gpu]") {
  // Saved on the H200 and trimmed to two repeats (tests/data/runs/README.md). Inductor lowered 14
  // of the 1x1 convolutions to extern mm calls, which no post-grad node runs: unless each takes
  // the node its comment names, 18% of the kernel time goes to no node.
  auto run = gpu::attribute_work_dir(test::sample("resnet50"),
                                     test::data("runs/resnet50_max-autotune_h200_work_dir"));
  REQUIRE(run);
  REQUIRE(run->modes.size() == 1);
  const auto& m = run->modes[0];
  CHECK(m.mode == "max-autotune");
  CHECK(m.launches == Approx(136.0));
  CHECK(m.cuda_graph_launches == Approx(136.0));
  CHECK(m.attributed_share() == Approx(1.0));
  std::vector<std::string> mm_nodes;
  std::set<std::string> library_convolutions;
  std::set<std::string> template_convolutions;
  for (const auto& k : m.kernels) {
    const bool triton = k.name.rfind("triton_", 0) == 0;
    for (const auto& n : k.nodes) {
      if (n.rfind("convolution", 0) != 0) continue;
      (triton ? template_convolutions : library_convolutions).insert(n);
    }
    if (k.group != "extern_kernels.mm") continue;
    REQUIRE(k.nodes.size() == 1);
    if (mm_nodes.empty() || mm_nodes.back() != k.nodes[0]) mm_nodes.push_back(k.nodes[0]);
  }
  // The convolution each mm call's comment names, in launch order (a split-K GEMM is two kernels).
  CHECK(mm_nodes == std::vector<std::string>{"convolution_5", "convolution_8", "convolution_11",
                                             "convolution_15", "convolution_18", "convolution_21",
                                             "convolution_28", "convolution_31", "convolution_34",
                                             "convolution_37", "convolution_40", "convolution_43",
                                             "convolution_47", "convolution_50"});
  // A convolution a Triton template computed is not also given to a cuDNN kernel after it.
  for (const auto& n : {"convolution_1", "convolution_3", "convolution_13", "convolution_45"}) {
    CHECK(template_convolutions.count(n) == 1);
    CHECK(library_convolutions.count(n) == 0);
  }
}
