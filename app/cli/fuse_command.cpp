// `fxscope-cli fuse PATH --mode MODE [--unit ID] [--device H200] [--json]`: the kernels each
// compile mode forms, beside Inductor's, with predicted times.
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fxscope/codegen/unit_kernel_sources.h"
#include "fxscope/report/fuse_report.h"
#include "fxscope/report/fuse_report_json.h"
#include "fxscope/report/fuse_report_text.h"
#include "rank_option.h"

namespace fxscope::cli {
namespace {

struct FuseArgs {
  std::string path;
  std::string mode = "default";
  std::string unit;
  std::string device = "H200";
  std::string device_overrides;
  std::size_t limit = 40;
  bool json = false;
  std::string cuda_source_dir;
};

// Writes each generated kernel of the plan to DIR; what could not be generated is named on
// stderr, and makes the exit status non-zero, rather than missing from the folder unsaid.
bool write_cuda_sources(const trace::TraceLog& log, fusion::Mode mode, const FuseArgs& args) {
  auto sources = codegen::unit_kernel_sources(log, mode, args.unit);
  if (!sources) return fail(sources.error().message), false;
  std::error_code ec;
  std::filesystem::create_directories(args.cuda_source_dir, ec);
  if (ec)
    return fail(args.cuda_source_dir + ": cannot create the folder (" + ec.message() + ")"), false;
  for (const auto& file : sources->files) {
    const std::filesystem::path path = std::filesystem::path(args.cuda_source_dir) / file.name;
    std::ofstream out(path);
    out << file.text;
    if (!out.flush()) return fail(path.string() + ": cannot write the kernel's source"), false;
  }
  for (const auto& why : sources->refused) std::fprintf(stderr, "fxscope-cli: %s\n", why.c_str());
  std::fprintf(stderr,
               "fxscope-cli: wrote %zu generated kernels to %s (%zu groups are library calls: "
               "cuBLAS, cuDNN, attention, ATen; %zu are foreach combo kernels, not generated%s)\n",
               sources->files.size(), args.cuda_source_dir.c_str(), sources->library_groups,
               sources->combo_groups,
               sources->refused.empty()
                   ? ""
                   : (", " + std::to_string(sources->refused.size()) + " not generated").c_str());
  if (!sources->refused.empty()) set_exit_code(1);
  return true;
}

void run_fuse(const FuseArgs& args) {
  const auto mode = fusion::parse_mode(args.mode);
  if (!mode) {
    fail("--mode " + args.mode + ": expected eager, default, reduce-overhead or max-autotune");
    return;
  }
  auto device = cost::find_device(args.device);
  if (!device) {
    std::string known;
    for (const auto& d : cost::known_devices()) known += " " + d.name;
    fail("--device " + args.device + ": unknown device (known:" + known + ")");
    return;
  }
  auto spec = cost::apply_overrides(*device, args.device_overrides);
  if (!spec) {
    fail(spec.error().message);
    return;
  }
  auto log = trace::read_trace(args.path);
  if (!log) {
    fail(log.error().message);
    return;
  }
  if (!args.cuda_source_dir.empty() && !write_cuda_sources(*log, *mode, args)) return;
  auto report = report::build_fuse_report(*log, *mode, args.unit, *spec);
  if (!report) {
    fail(report.error().message);
    return;
  }
  if (args.json) {
    std::cout << report::to_json(*report).dump(1) << "\n";
  } else {
    std::cout << report::to_text(*report, args.limit);
  }
}

}  // namespace

void add_fuse_command(CLI::App& app) {
  auto args = std::make_shared<FuseArgs>();
  auto* cmd = app.add_subcommand(
      "fuse", "kernels per compile mode, fxscope's plan beside Inductor's, with predicted times");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_option("--mode", args->mode, "eager, default, reduce-overhead or max-autotune")
      ->capture_default_str();
  cmd->add_option("--unit", args->unit, "one compile unit, e.g. 0/0 (default: all)");
  cmd->add_option("--device", args->device, "H200, H100, A100, V100, L4 or RTX4090")
      ->capture_default_str();
  cmd->add_option("--device-set", args->device_overrides,
                  "override rates: bw=GB/s,fp32=,tf32=,bf16=TFLOP/s,launch=,graph_launch=us");
  cmd->add_option("--limit", args->limit, "kernel rows shown per graph (0: all)")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option(
      "--cuda-source", args->cuda_source_dir,
      "also write the CUDA C of each generated kernel (what `run` compiles) to this folder");
  add_rank_option(cmd, args->path, [args] { run_fuse(*args); });
}

}  // namespace fxscope::cli
