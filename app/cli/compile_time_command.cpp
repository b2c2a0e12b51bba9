// `fxscope-cli compile-time PATH [--json] [--rank N | --all-ranks]`: where compile time went,
// per compile unit and for the whole run, from the phases Dynamo, AOTAutograd and Inductor timed
// in the log; with --all-ranks, which rank of a distributed job compiled slowest and why.
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fxscope/report/compile_time.h"
#include "fxscope/report/compile_time_json.h"
#include "fxscope/report/compile_time_text.h"
#include "fxscope/report/rank_compile_time.h"
#include "fxscope/trace/trace_log.h"
#include "read_log.h"

namespace fxscope::cli {
namespace {

struct CompileTimeArgs {
  std::string path;
  bool json = false;
  int rank = 0;
  bool all_ranks = false;
};

void run_across_ranks(const CompileTimeArgs& args) {
  const auto ranks = report::compile_time_across_ranks(args.path);
  if (!ranks) {
    std::fprintf(stderr, "fxscope-cli: %s\n", ranks.error().message.c_str());
    set_exit_code(1);
    return;
  }
  if (args.json) {
    std::cout << report::to_json(*ranks).dump(1) << "\n";
  } else {
    std::cout << report::to_text(*ranks);
  }
}

void run_compile_time(const CompileTimeArgs& args) {
  if (args.all_ranks) return run_across_ranks(args);
  const auto log = read_log(args.path, args.rank);
  if (!log) {
    set_exit_code(1);
    return;
  }
  const auto times = report::compile_time(*log);
  if (args.json) {
    std::cout << report::to_json(times).dump(1) << "\n";
  } else {
    std::cout << report::to_text(times);
  }
}

}  // namespace

void add_compile_time_command(CLI::App& app) {
  auto args = std::make_shared<CompileTimeArgs>();
  auto* cmd = app.add_subcommand(
      "compile-time", "where compile time went: each compile's timed phases, and the whole run's");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option("--rank", args->rank, "which rank's log to read in a directory of several")
      ->capture_default_str();
  cmd->add_flag("--all-ranks", args->all_ranks,
                "every rank's compile time: which rank compiled slowest and in which phases")
      ->excludes("--rank");
  cmd->callback([args] { run_compile_time(*args); });
}

}  // namespace fxscope::cli
