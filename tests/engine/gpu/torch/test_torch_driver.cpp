#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "corpus_log.h"
#include "fxscope/gpu/torch_run.h"
#include "run_process.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;

namespace {

// The driver as fxscope-cli starts it; stderr is kept, since refusals are printed there.
test::ProcessResult driver(const std::string& args) {
  return test::run_process("python3 " + std::string(FXSCOPE_SOURCE_TORCH_DRIVER) + " " + args +
                           " 2>&1");
}

// PYTHON (statements, after `import fxscope_torch_driver as d`) run beside the driver, without
// torch: what checks the driver's rewriting of a runnable's text.
test::ProcessResult driver_python(const std::string& python) {
  return test::run_process(
      "cd " + std::filesystem::path(FXSCOPE_SOURCE_TORCH_DRIVER).parent_path().string() +
      " && python3 -c \"import fxscope_torch_driver as d; " + python + "\" 2>&1");
}

// Options that run the driver of this checkout on LOG in MODE, its work in a temp folder that the
// run removes.
gpu::TorchRunOptions driver_options(const std::string& log, const std::string& mode) {
  gpu::TorchRunOptions o;
  o.log_path = log;
  o.mode = mode;
  o.driver = FXSCOPE_SOURCE_TORCH_DRIVER;
  o.cupti_lib = gpu::default_cupti_lib();
  auto dir = gpu::make_temp_work_dir();
  REQUIRE(dir);
  o.work_dir = *dir;
  o.remove_work_dir = true;
  return o;
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

TEST_CASE("the driver marks every op of a runnable in its own source (RNG ops too)", "[gpu]") {
  // Without torch: the rewrite is text. residual_mlp_train's forward draws dropout's seeds from
  // constants, which retracing would have run once and frozen.
  const std::string log =
      test::sample("residual_mlp_train") + "/dedicated_log_torch_trace_hy9tj9yq.log";
  const auto r = driver_python("s = d.marked_source(d.prepared_source(d.find_runnables('" + log +
                               "')[0]['0/0'])); "
                               "compile(s, 'marked', 'exec'); "
                               "print(s.count('_fxscope_push'), s.count('_fxscope_pop'), "
                               "'fxscope-op:2:inductor_seeds_default' in s)");
  CHECK(r.status == 0);
  CHECK(r.output == "17 17 True\n");
}

TEST_CASE("a runnable PyTorch wrote as invalid Python is refused with its line", "[gpu]") {
  // torch.cond's branches in fx_graph_runnable, as PyTorch 2.11 writes them (hand_cond_branch).
  const test::ScratchDir dir("invalid_runnable");
  const std::filesystem::path runnable = std::filesystem::path(dir.path()) / "runnable.py";
  {
    std::ofstream f(runnable);
    f << "import torch\nclass Repro(torch.nn.Module):\n    def __init__(self) -> None:\n"
         "        super().__init__()\n        self.true_graph_0 = <lambda>()\n";
  }
  const auto r = driver_python("d.load_repro(open('" + runnable.string() + "').read())");
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Catch::Contains("fx_graph_runnable is not valid Python (line 5: "
                                       "self.true_graph_0 = <lambda>())"));
}

TEST_CASE("a torch.cond's branches the runnable leaves out are rebuilt from the unit's graph",
          "[gpu]") {
  // hand_cond_branch's fx_graph_runnable writes its branches as `self.true_graph_0 = <lambda>()`;
  // the before_post_grad_graph after it holds their classes, nested in the graph's class.
  const auto log = test::corpus_log("hand_cond_branch");
  if (!log) return;
  const test::ScratchDir dir("cond_runnable");
  const auto files = gpu::write_runnable(*log, "0/0", dir.path());
  REQUIRE(files);
  REQUIRE_FALSE(files->runnable.empty());
  REQUIRE_FALSE(files->graph.empty());
  const std::string& runnable = files->runnable;
  const std::string& graph_py = files->graph;
  // Without torch: the rebuilt source compiles, builds both branches from their classes and
  // leaves no `<lambda>` behind; the marked source's NVTX ranges are the parent graph's alone.
  const auto r = driver_python(
      "r = open('" + runnable + "').read(); g = open('" + graph_py +
      "').read(); s = d.with_subgraphs(d.prepared_source(r), g); compile(s, 'r', 'exec'); "
      "m = d.with_subgraphs(d.marked_source(d.prepared_source(r)), g); compile(m, 'm', 'exec'); "
      "print(s.count('= _fxscope_subgraph(_fxscope_sub_'), '<lambda>' in s, "
      "m.count('_fxscope_push') == d.marked_source(d.prepared_source(r)).count('_fxscope_push'), "
      "'return torch.sigmoid(self.narrow(h)) - h' in s)");
  CHECK(r.status == 0);
  CHECK(r.output == "2 False True True\n");
}

TEST_CASE("a PyTorch run relays the driver's progress while it runs and its refusal is the error",
          "[gpu]") {
  // A stand-in driver (sh, not Python): progress, Inductor's autotune header and one row of its
  // table, a pause, then a refusal followed by one more progress line.
  auto dir = gpu::make_temp_work_dir();
  REQUIRE(dir);
  const std::string script = *dir + "/driver.sh";
  std::ofstream(script)
      << "echo 'fxscope-progress: PyTorch 9.9 on Test GPU, unit 0/0' >&2\n"
         "echo 'AUTOTUNE mm(3136x64, 64x64)' >&2\n"
         "echo '  triton_mm_1 0.0102 ms 100.0%' >&2\n"
         "sleep 1\n"
         "echo 'fxscope_torch_driver: no CUDA GPU is visible to PyTorch 9.9' >&2\n"
         "echo 'fxscope-progress: max-autotune: timing 20 calls' >&2\n"
         "exit 3\n";
  gpu::TorchRunOptions o;
  o.log_path = test::sample("residual_mlp") + "/dedicated_log_torch_trace_ljqh8_c9.log";
  o.python = "/bin/sh";
  o.driver = script;
  o.work_dir = *dir;
  o.remove_work_dir = true;
  using Clock = std::chrono::steady_clock;
  std::vector<std::string> lines;
  Clock::time_point first_line;
  o.progress = [&](const std::string& line) {
    if (lines.empty()) first_line = Clock::now();
    lines.push_back(line);
  };
  const auto run = gpu::run_pytorch(o);
  const auto returned = Clock::now();
  REQUIRE_FALSE(run);
  CHECK(run.error().message == "fxscope_torch_driver: no CUDA GPU is visible to PyTorch 9.9");
  CHECK(lines == std::vector<std::string>{"PyTorch 9.9 on Test GPU, unit 0/0",
                                          "autotuning mm(3136x64, 64x64)",
                                          "max-autotune: timing 20 calls"});
  // The first lines came before the pause, not when the driver ended.
  CHECK(returned - first_line >= std::chrono::milliseconds(500));
}

TEST_CASE("allow_tf32 reaches the driver as --allow-tf32, and only when set", "[gpu]") {
  // A stand-in driver that refuses with the arguments it was given.
  auto dir = gpu::make_temp_work_dir();
  REQUIRE(dir);
  const std::string script = *dir + "/driver.sh";
  std::ofstream(script) << "echo \"fxscope_torch_driver: given $*\" >&2\nexit 3\n";
  gpu::TorchRunOptions o;
  o.log_path = test::sample("residual_mlp") + "/dedicated_log_torch_trace_ljqh8_c9.log";
  o.python = "/bin/sh";
  o.driver = script;
  o.work_dir = *dir;
  o.mode = "default";
  const auto given = [&] {
    const auto run = gpu::run_pytorch(o);
    REQUIRE_FALSE(run);
    return run.error().message;
  };
  // The driver is always told the unit, the one the engine runs by default, and given its runnable.
  const std::string told = "fxscope_torch_driver: given " + o.log_path +
                           " --mode default --unit 0/0 --runnable " + *dir + "/runnable.py";
  CHECK(given() == told);
  o.allow_tf32 = true;
  o.remove_work_dir = true;
  CHECK(given() == told + " --allow-tf32");
}

TEST_CASE("a compressed log's runnable reaches the driver as a plain file", "[gpu]") {
  // A stand-in driver that answers with the first line of the Repro module it was handed.
  auto dir = gpu::make_temp_work_dir();
  REQUIRE(dir);
  const std::string script = *dir + "/driver.sh";
  std::ofstream(script) << "echo \"fxscope_torch_driver: $(grep -m1 '^class Repro' \"$7\")\" >&2\n"
                           "exit 3\n";
  gpu::TorchRunOptions o;
  const auto log = test::corpus_log("hand_mlp_max_autotune_bf16");
  if (!log) return;
  o.log_path = log->path();
  REQUIRE(o.log_path.ends_with(".zst"));
  o.python = "/bin/sh";
  o.driver = script;
  o.work_dir = *dir;
  o.remove_work_dir = true;
  o.mode = "default";
  const auto run = gpu::run_pytorch(o);
  REQUIRE_FALSE(run);
  CHECK(run.error().message == "fxscope_torch_driver: class Repro(torch.nn.Module):");
}

TEST_CASE("code the runnable defines finds its own source, as a user's Triton kernel does",
          "[gpu]") {
  // triton.jit reads the kernel's source through inspect (hand_user_triton_bf16's runnable
  // defines one); exec'd code has no file, so the driver registers its text with linecache.
  const auto r = driver_python(
      "import inspect; s = {}; "
      "exec(d.compiled_source('def kernel(x):\\n    return x + 1\\n', '<runnable>'), s); "
      "print(inspect.getsource(s['kernel']).splitlines()[1].strip())");
  CHECK(r.status == 0);
  CHECK(r.output == "return x + 1\n");
}

TEST_CASE("a custom op the runnable calls is named with the option that loads it", "[cuda]") {
  // Needs PyTorch (the GPU host's): hand_custom_op_fp16 calls fxscope_corpus.rms_scale, which
  // the capturing program registered; its Python body is not in the log.
  const auto log = test::corpus_log("hand_custom_op_fp16");
  if (!log) return;
  const auto run = gpu::run_pytorch(driver_options(log->path(), "eager"));
  REQUIRE_FALSE(run);
  if (run.error().message.find("PyTorch is not installed") != std::string::npos) {
    WARN("skipped, no PyTorch: " + run.error().message);
    return;
  }
  CHECK_THAT(run.error().message,
             Catch::Contains("calls the custom op fxscope_corpus.rms_scale, which your program "
                             "registers (torch.library) and the log does not hold: pass the "
                             "module that registers it with --import MODULE"));
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

TEST_CASE("a training unit under CUDA graphs attributes its input copies too", "[cuda]") {
  // residual_mlp_train's forward unit: its inputs are not all static, so CUDA graph trees copy
  // some into the graph's buffers on every call, outside the graph.
  const auto run = gpu::run_pytorch(
      driver_options(test::sample("residual_mlp_train") + "/dedicated_log_torch_trace_hy9tj9yq.log",
                     "reduce-overhead"));
  if (!run) {
    WARN("skipped, no device or no PyTorch: " + run.error().message);
    return;
  }
  REQUIRE(run->modes.size() == 1);
  const auto& m = run->modes.front();
  CHECK(m.cuda_graph_launches >= 1.0);
  CHECK(m.attributed_share() >= 0.95);
  for (const auto& k : m.kernels) {
    INFO(k.name);
    if (k.group == gpu::kCudaGraphInputCopy) CHECK_FALSE(k.nodes.empty());
  }
}
