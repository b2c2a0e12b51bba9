// `fxscope-cli guards PATH`: what each unit's guards demand, which cache entry a proposed input
// would reuse (--input / --const), and the replay of the log's recompiles (--check-recompiles).
#include <cstdio>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "fxscope/guards/input_spec.h"
#include "fxscope/report/guards_report.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::cli {
namespace {

struct GuardsArgs {
  std::string path;
  std::string unit;
  std::vector<std::string> inputs;
  std::vector<std::string> constants;
  bool check_recompiles = false;
  bool json = false;
  int rank = 0;
};

// Prints the one-line message of a bad argument or input and marks the run failed.
// The --input and --const specs as one input; the Error names the first bad spec.
Result<guards::ProposedInput> parse_input(const GuardsArgs& args) {
  guards::ProposedInput input;
  const auto twice = [&](const std::string& source) {
    return input.find_tensor(source) || input.find_constant(source);
  };
  for (const auto& spec : args.inputs) {
    auto tensor = guards::parse_tensor_spec(spec);
    if (!tensor) return tensor.error();
    if (twice(tensor->source)) return make_error("input spec '" + spec + "' repeats a name");
    input.tensors.push_back(std::move(*tensor));
  }
  for (const auto& spec : args.constants) {
    auto constant = guards::parse_constant_spec(spec);
    if (!constant) return constant.error();
    if (twice(constant->source)) return make_error("constant spec '" + spec + "' repeats a name");
    input.constants.push_back(std::move(*constant));
  }
  return input;
}

template <class Report>
void print(const Result<Report>& result, bool json) {
  if (!result) return fail(result.error().message);
  if (json) {
    std::cout << report::to_json(*result).dump(1) << "\n";
  } else {
    std::cout << report::to_text(*result);
  }
}

void run_guards(const GuardsArgs& args) {
  std::optional<trace::CompileId> unit;
  if (!args.unit.empty()) {
    unit = trace::CompileId::parse(args.unit);
    if (!unit) return fail("--unit '" + args.unit + "' is not a compile id such as 4/0");
  }
  const auto input = parse_input(args);
  if (!input) return fail(input.error().message);
  trace::ReadOptions options;
  options.rank = args.rank;
  const auto log = trace::read_trace(args.path, options);
  if (!log) return fail(log.error().message);
  if (args.check_recompiles) {
    print(report::check_recompiles(*log, unit), args.json);
  } else if (!input->tensors.empty() || !input->constants.empty()) {
    print(report::evaluate_input(*log, unit, *input), args.json);
  } else {
    print(report::list_guards(*log, unit), args.json);
  }
}

}  // namespace

void add_guards_command(CLI::App& app) {
  auto args = std::make_shared<GuardsArgs>();
  auto* cmd = app.add_subcommand(
      "guards", "what each compile's guards demand, and which cache entry an input would reuse");
  cmd->add_option("PATH", args->path, "a TORCH_TRACE log file or the directory holding it")
      ->required();
  cmd->add_option("--unit", args->unit,
                  "one compile unit (4/0); with inputs, its frame's cache as it stood after it");
  auto* input = cmd->add_option("--input", args->inputs,
                                "a tensor of the proposed input: NAME=8x64:f32[:stride=64x1]"
                                "[:cuda:0|cpu][:grad]; repeatable");
  auto* constant =
      cmd->add_option("--const", args->constants,
                      "a Python constant of the proposed input: NAME=VALUE; repeatable");
  cmd->add_flag("--check-recompiles", args->check_recompiles,
                "replay every recorded recompile and compare with Dynamo's reasons")
      ->excludes(input)
      ->excludes(constant);
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_option("--rank", args->rank, "which rank's log to read in a directory of several")
      ->capture_default_str();
  cmd->callback([args] { run_guards(*args); });
}

}  // namespace fxscope::cli
