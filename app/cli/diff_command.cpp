// `fxscope-cli diff A B [--json] [--rank N] [--rank-b M]`: what changed between two logs (files,
// directories, compressed logs, or two ranks of one run): breaks, recompiles, graphs, kernels
// and compile time.
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.h"
#include "fxscope/report/run_diff.h"
#include "fxscope/report/run_diff_json.h"
#include "fxscope/report/run_diff_text.h"
#include "fxscope/trace/trace_log.h"
#include "read_log.h"

namespace fxscope::cli {
namespace {

struct DiffArgs {
  std::string a;
  std::string b;
  bool json = false;
  int rank = 0;
  std::optional<int> rank_b;  // B's rank when it differs from A's: two ranks of one run
};

void run_diff(const DiffArgs& args) {
  const auto a = read_log(args.a, args.rank);
  const auto b = read_log(args.b, args.rank_b.value_or(args.rank));
  if (!a || !b) {
    set_exit_code(1);
    return;
  }
  const auto diff = report::diff_runs(*a, *b);
  if (args.json) {
    std::cout << report::to_json(diff).dump(1) << "\n";
  } else {
    std::cout << report::to_text(diff);
  }
}

}  // namespace

void add_diff_command(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand(
      "diff", "what changed between two logs: breaks, recompiles, graphs, kernels, compile time");
  cmd->add_option("A", args->a, "the first (older) log file or directory")->required();
  cmd->add_option("B", args->b, "the second (newer) log file or directory")->required();
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option("--rank", args->rank, "which rank's log to read in a directory of several")
      ->capture_default_str();
  cmd->add_option("--rank-b", args->rank_b,
                  "B's rank when it is not --rank's: `diff RUN RUN --rank 0 --rank-b 3`");
  cmd->callback([args] { run_diff(*args); });
}

}  // namespace fxscope::cli
