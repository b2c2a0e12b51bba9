// `fxscope-cli run PATH --backend pytorch [--python PATH] [--unit ID] --mode MODE|all [--json]
// [--chrome-trace FILE]`: one compile unit re-run under real PyTorch per mode, every kernel
// recorded by fxscope's CUPTI injection library and mapped to groups and nodes.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"

#if FXSCOPE_HAS_CUDA
#include "fxscope/gpu/torch_run.h"
#endif

namespace fxscope::cli {
namespace {

struct RunArgs {
  std::string path;
  std::string backend = "pytorch";
  std::string python = "python3";
  std::string unit;
  std::string mode = "all";
  std::string chrome_trace;
  std::string work_dir;
  bool json = false;
};

void fail(const std::string& message) {
  std::fprintf(stderr, "fxscope-cli: %s\n", message.c_str());
  set_exit_code(1);
}

bool known_mode(const std::string& mode) {
  return mode == "all" || mode == "eager" || mode == "default" || mode == "reduce-overhead" ||
         mode == "max-autotune";
}

#if FXSCOPE_HAS_CUDA
void print_text(const gpu::TorchRun& run) {
  std::printf("%s  unit %s  torch %s  backend pytorch\n", run.device.c_str(), run.unit.c_str(),
              run.torch_version.c_str());
  std::printf("%-16s %10s %10s %9s %11s %8s\n", "mode", "total_us", "kernel_us", "launches",
              "in_graphs", "attrib");
  for (const auto& m : run.modes) {
    std::printf("%-16s %10.1f %10.1f %9.1f %11.1f %7.1f%%\n", m.mode.c_str(), m.total_us,
                m.kernel_us, m.launches, m.graph_launches, 100.0 * m.attributed_share());
    for (const auto& k : m.kernels) {
      std::string nodes;
      for (const auto& n : k.nodes) nodes += (nodes.empty() ? "" : ",") + n;
      std::printf("    %9.2f us  %-40.40s  %s\n", k.us, k.name.c_str(),
                  nodes.empty() ? "(unattributed)" : nodes.c_str());
    }
  }
}
#endif

void run_run(const RunArgs& args) {
  if (args.backend != "pytorch") {
    fail("--backend " + args.backend + ": only the pytorch backend is built");
    return;
  }
  if (!known_mode(args.mode)) {
    fail("--mode " + args.mode + ": expected eager, default, reduce-overhead, max-autotune or all");
    return;
  }
#if FXSCOPE_HAS_CUDA
  gpu::TorchRunOptions o;
  o.log_path = args.path;
  o.unit = args.unit;
  o.mode = args.mode;
  o.python = args.python;
  o.driver = gpu::default_torch_driver();
  o.cupti_lib = gpu::default_cupti_lib();
  o.work_dir =
      args.work_dir.empty()
          ? (std::filesystem::temp_directory_path() / ("fxscope-run-" + std::to_string(getpid())))
                .string()
          : args.work_dir;
  auto run = gpu::run_pytorch(o);
  if (!run) {
    fail(run.error().message);
    return;
  }
  if (!args.chrome_trace.empty()) {
    std::ofstream out(args.chrome_trace);
    if (!out) {
      fail(args.chrome_trace + ": cannot write the Chrome trace");
      return;
    }
    out << gpu::to_chrome_trace(*run).dump() << "\n";
  }
  if (args.json) {
    std::cout << gpu::to_json(*run).dump(1) << "\n";
  } else {
    print_text(*run);
  }
#else
  fail("this fxscope-cli was built without CUDA (FXSCOPE_WITH_CUDA=OFF): no GPU backend");
#endif
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand(
      "run", "re-run a compile unit on the GPU under real PyTorch, per kernel, per mode");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_option("--backend", args->backend, "pytorch")->capture_default_str();
  cmd->add_option("--python", args->python, "the Python that has PyTorch")->capture_default_str();
  cmd->add_option("--unit", args->unit, "one compile unit, e.g. 0/0 (default: the first)");
  cmd->add_option("--mode", args->mode, "eager, default, reduce-overhead, max-autotune or all")
      ->capture_default_str();
  cmd->add_option("--chrome-trace", args->chrome_trace, "also write the kernels as a Chrome trace");
  cmd->add_option("--work-dir", args->work_dir,
                  "keep the driver's output, CUPTI records and TORCH_TRACE here");
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->callback([args] { run_run(*args); });
}

}  // namespace fxscope::cli
