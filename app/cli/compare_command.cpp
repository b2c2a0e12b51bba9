// `fxscope-cli compare PATH --unit ID --mode MODE [--json] [--pytorch-json FILE] [--engine-json
// FILE]`: per fusion group, the cost model's prediction beside the engine backend's and real
// PyTorch's measurement. Measurements come from saved `run --json` outputs, or from `run` itself,
// started as a child process of this executable (a CUDA fault then never takes compare down).
#include <stdlib.h>

#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "commands.h"
#include "rank_option.h"

#include "fxscope/report/fuse_report.h"
#include "fxscope/report/group_comparison.h"

namespace fxscope::cli {
namespace {

struct CompareArgs {
  std::string path;
  std::string unit;
  std::string mode = "default";
  std::string device = "H200";
  std::string python;
  std::string pytorch_json;
  std::string engine_json;
  bool allow_tf32 = false;  // the PyTorch child's convolutions and matmuls in TF32
  bool json = false;
};

std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return {};
  const std::size_t begin = text.rfind('\n', end);
  std::string line = text.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
  const std::string prefix = "fxscope-cli: ";
  return line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
}

// `fxscope-cli run ... --backend BACKEND --json` as a child of this executable: its run, or its
// one-line refusal as the reason the column is empty.
report::MeasuredRun run_child(const CompareArgs& args, const std::string& backend) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::string err_path = (std::filesystem::temp_directory_path(ec) / "fxscope-compare-XXXXXX");
  const int fd = mkstemp(err_path.data());
  if (ec || fd < 0) return {std::nullopt, "cannot start fxscope-cli run"};
  close(fd);
  std::string command = shell_quoted(self.string()) + " run " + shell_quoted(args.path) +
                        " --backend " + backend + " --unit " + shell_quoted(args.unit) +
                        " --mode " + args.mode + " --json";
  if (!args.python.empty()) command += " --python " + shell_quoted(args.python);
  if (args.allow_tf32 && backend == "pytorch") command += " --allow-tf32";
  command += " 2>" + shell_quoted(err_path);
  std::string out;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 65536> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
    const int status = pclose(pipe);
    if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      std::filesystem::remove(err_path, ec);
      auto run = report::parse_run_result(out, "fxscope-cli run --backend " + backend);
      if (!run) return {std::nullopt, run.error().message};
      return {std::move(*run), {}};
    }
  }
  std::ifstream err(err_path);
  std::stringstream ss;
  ss << err.rdbuf();
  std::filesystem::remove(err_path, ec);
  const std::string why = last_line(ss.str());
  return {std::nullopt, why.empty() ? "the run failed" : why};
}

// The saved run in FILE, else a child run; FILE that cannot be read is an error.
Result<report::MeasuredRun> measured(const CompareArgs& args, const std::string& file,
                                     const std::string& backend) {
  if (file.empty()) return run_child(args, backend);
  auto run = report::read_run_result(file);
  if (!run) return run.error();
  return report::MeasuredRun{std::move(*run), {}};
}

void run_compare(const CompareArgs& args) {
  const auto mode = fusion::parse_mode(args.mode);
  if (!mode) {
    fail("--mode " + args.mode + ": expected eager, default, reduce-overhead or max-autotune");
    return;
  }
  const auto device = cost::find_device(args.device);
  if (!device) {
    fail("--device " + args.device + ": unknown device");
    return;
  }
  auto log = trace::read_trace(args.path);
  if (!log) {
    fail(log.error().message);
    return;
  }
  auto fuse = report::build_fuse_report(*log, *mode, args.unit, *device);
  if (!fuse) {
    fail(fuse.error().message);
    return;
  }
  auto pytorch = measured(args, args.pytorch_json, "pytorch");
  if (!pytorch) {
    fail(pytorch.error().message);
    return;
  }
  if (!pytorch->run) pytorch->why_absent = "pytorch: " + pytorch->why_absent;
  auto engine = measured(args, args.engine_json, "engine");
  if (!engine) {
    fail(engine.error().message);
    return;
  }
  if (!engine->run) engine->why_absent = "engine: not built/no GPU (" + engine->why_absent + ")";
  auto comparison = report::compare_unit(*fuse, args.mode, *engine, *pytorch);
  if (!comparison) {
    fail(comparison.error().message);
    return;
  }
  if (args.json) {
    std::cout << report::to_json(*comparison).dump(1) << "\n";
  } else {
    std::cout << report::to_text(*comparison);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "per fusion group: predicted, engine-measured and PyTorch-measured time");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_option("--unit", args->unit, "the compile unit, e.g. 0/0")->required();
  cmd->add_option("--mode", args->mode, "eager, default, reduce-overhead or max-autotune")
      ->capture_default_str();
  cmd->add_option("--device", args->device, "the cost model's device: H200, H100, A100 ...")
      ->capture_default_str();
  cmd->add_option("--python", args->python, "the Python that has PyTorch (for the child run)");
  cmd->add_option("--pytorch-json", args->pytorch_json,
                  "a saved `run --backend pytorch --json` output instead of running it");
  cmd->add_option("--engine-json", args->engine_json,
                  "a saved `run --backend engine --json` output instead of running it");
  cmd->add_flag("--allow-tf32", args->allow_tf32,
                "the PyTorch run's convolutions and matmuls in TF32 (default: full FP32)");
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  add_rank_option(cmd, args->path, [args] { run_compare(*args); });
}

}  // namespace fxscope::cli
