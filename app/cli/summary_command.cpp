// `fxscope-cli summary PATH [--json]`: compile units, graph breaks and recompiles of a log.
#include <cstdio>
#include <iostream>
#include <memory>

#include "commands.h"
#include "fxscope/report/summary.h"
#include "fxscope/report/summary_json.h"
#include "fxscope/report/summary_text.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::cli {
namespace {

struct SummaryArgs {
  std::string path;
  bool json = false;
  int rank = 0;
};

}  // namespace

std::optional<std::size_t> print_summary(const std::string& path, int rank, bool json) {
  trace::ReadOptions options;
  options.rank = rank;
  auto log = trace::read_trace(path, options);
  if (!log) {
    std::fprintf(stderr, "fxscope-cli: %s\n", log.error().message.c_str());
    return std::nullopt;
  }
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
  cmd->callback([args] {
    if (!print_summary(args->path, args->rank, args->json)) set_exit_code(1);
  });
}

}  // namespace fxscope::cli
