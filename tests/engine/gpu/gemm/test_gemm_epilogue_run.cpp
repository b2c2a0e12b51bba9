// On a GPU: max-autotune times a Linear + relu (and + tanh GELU) with the activation in
// cuBLASLt's epilogue against GEMM + generated kernel, reports the pick, and the result matches
// eager (three launches). The units are minimal TORCH_TRACE logs written here, since no sample
// captured a Linear followed by exactly bias + activation.

#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "fxscope/gpu/engine_run.h"

using namespace fxscope;

namespace {

// A log whose one unit computes BODY (FX lines ending in `out`) from mm = x @ w and the bias b.
std::filesystem::path write_log(const std::string& name, const std::string& body) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("fxscope_epilogue_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string graph =
      "class <lambda>(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[128, 256][256, 1]cuda:0\", "
      "arg1_1: \"f32[256, 512][512, 1]cuda:0\", arg2_1: \"f32[512][1]cuda:0\"):\n"
      "        mm: \"f32[128, 512][512, 1]cuda:0\" = torch.ops.aten.mm.default(arg0_1, arg1_1)\n"
      "        h: \"f32[128, 512][512, 1]cuda:0\" = torch.ops.aten.add.Tensor(mm, arg2_1)\n" +
      body + "        return (out,)\n";
  std::string payload;
  for (std::size_t at = 0; at < graph.size();) {
    const std::size_t end = graph.find('\n', at);
    payload += "\t" + graph.substr(at, end - at) + "\n";
    at = end + 1;
  }
  const std::string prefix = "V1129 13:09:42.780000 1 torch/x.py:1] ";
  const std::string unit = R"j("frame_id": 0, "frame_compile_id": 0, "attempt": 0)j";
  std::ofstream(dir / "dedicated_log_torch_trace_epilogue.log")
      << prefix << R"j({"str": ["/tmp/model.py", 0]})j"
      << "\n"
      << prefix
      << R"j({"dynamo_start": {"stack": [{"line": 1, "name": "forward", "filename": 0}]}, )j"
      << unit << "}\n"
      << prefix << R"j({"aot_inference_graph": {}, "has_payload": "0", )j" << unit << "}\n"
      << payload << prefix
      << R"j({"artifact": {"name": "inductor_post_grad_graph", "encoding": "string"}, )j"
      << R"j("has_payload": "1", )j" << unit << "}\n"
      << payload;
  return dir;
}

std::string epilogue_line(const std::string& name, const std::string& call) {
  return "        " + name + ": \"f32[128, 512][512, 1]cuda:0\" = torch.ops.aten." + call + "\n";
}

}  // namespace

TEST_CASE("max-autotune times cuBLASLt's epilogue against GEMM + kernel and keeps the faster",
          "[cuda][engine][epilogue]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"relu", epilogue_line("out", "relu.default(h)")},
      {"gelu_tanh", epilogue_line("out", "gelu.default(h, approximate = 'tanh')")}};
  for (const auto& [name, body] : cases) {
    const auto dir = write_log(name, body);
    gpu::EngineRunOptions o;
    o.log_path = dir.string();
    o.mode = "eager,max-autotune";
    o.repeats = 5;
    o.warmup = 2;
    const auto run = gpu::run_engine(o);
    std::filesystem::remove_all(dir);
    if (!run && run.error().message.find("no CUDA device") != std::string::npos) {
      WARN("skipped, no device: " + run.error().message);
      return;
    }
    INFO(name);
    REQUIRE(run);
    REQUIRE(run->modes.size() == 2);
    const gpu::EngineMode& tuned = run->modes[1];
    INFO(tuned.error);
    CHECK(tuned.ran);
    CHECK(tuned.coverage.ran == tuned.coverage.ops);
    REQUIRE(tuned.max_rel_err.has_value());
    CHECK(!tuned.flagged);
    bool picked = false;
    for (const std::string& p : tuned.picks) {
      std::cout << name << ": " << p << "\n";
      picked = picked || (p.find("epilogue") != std::string::npos &&
                          p.find("GEMM + kernel") != std::string::npos);
    }
    std::cout << name << ": max-autotune " << tuned.measured.launches << " launches, max_rel_err "
              << *tuned.max_rel_err << "\n";
    CHECK(picked);
  }
}
