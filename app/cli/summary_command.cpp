// `fxscope-cli summary PATH [--json] [--rank N | --all-ranks]`: compile units, graph breaks and
// recompiles of a log, or every rank of a distributed job and where the ranks diverge.
#include <cstdio>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "fxscope/report/rank_comparison.h"
#include "fxscope/report/rank_comparison_output.h"
#include "fxscope/report/summary.h"
#include "fxscope/report/summary_json.h"
#include "fxscope/report/summary_text.h"
#include "fxscope/trace/trace_log.h"
#include "read_log.h"

namespace fxscope::cli {
namespace {

struct SummaryArgs {
  std::string path;
  bool json = false;
  int rank = 0;
  bool all_ranks = false;
};

bool print_all_ranks(const std::string& path, bool json) {
  const auto comparison = report::compare_ranks(path);
  if (!comparison) {
    std::fprintf(stderr, "fxscope-cli: %s\n", comparison.error().message.c_str());
    return false;
  }
  if (json) {
    std::cout << report::to_json(*comparison).dump(1) << "\n";
  } else {
    std::cout << report::to_text(*comparison);
  }
  return true;
}

}  // namespace

std::optional<std::size_t> print_summary(const std::string& path, int rank, bool json) {
  const auto log = read_log(path, rank);
  if (!log) return std::nullopt;
  const auto summary = report::summarize(*log);
  if (json) {
    std::cout << report::to_json(summary).dump(1) << "\n";
  } else {
    std::cout << report::to_text(summary);
  }
  return summary.units.size();
}

void add_summary_command(CLI::App& app) {
  auto args = std::make_shared<SummaryArgs>();
  auto* cmd = app.add_subcommand(
      "summary", "compile units, graph breaks and recompiles of a TORCH_TRACE log or directory");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option("--rank", args->rank, "which rank's log to read in a directory of several")
      ->capture_default_str();
  cmd->add_flag("--all-ranks", args->all_ranks,
                "read every rank's log in the directory and say where the ranks diverge")
      ->excludes("--rank");
  cmd->callback([args] {
    const bool ok = args->all_ranks ? print_all_ranks(args->path, args->json)
                                    : print_summary(args->path, args->rank, args->json).has_value();
    if (!ok) set_exit_code(1);
  });
}

}  // namespace fxscope::cli
