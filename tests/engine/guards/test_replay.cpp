#include <catch2/catch.hpp>

#include <string>

#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"
#include "fxscope/guards/recompile_replay.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += "  " + line + "\n";
  return out;
}

}  // namespace

TEST_CASE("every recorded recompile of every sample is replayed with Dynamo's reasons",
          "[guards][replay]") {
  const char* samples[] = {"resnet18",           "resnet50",
                           "gpt2_2layer",        "gpt2_12layer",
                           "gpt2_48layer",       "residual_mlp",
                           "residual_mlp_train", "pointwise_chain",
                           "graph_breaks",       "reduce_overhead_dynamic",
                           "max_autotune_mlp"};
  std::size_t replayed = 0;
  for (const char* sample : samples) {
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log.ok());
    const auto checks = replay_recompiles(*log);
    REQUIRE(checks.size() == log->recompiles().size());
    for (const auto& check : checks) {
      INFO(sample << " " << check.compile_id.str() << "\nrecorded:\n"
                  << joined(check.recorded) << "predicted:\n"
                  << joined(check.predicted));
      CHECK(check.match);
      CHECK(!check.recorded.empty());
      ++replayed;
    }
  }
  CHECK(replayed == 6);
}

TEST_CASE("graph_breaks replay gives each reason in Dynamo's words", "[guards][replay]") {
  auto log = trace::read_trace(test::sample("graph_breaks"));
  REQUIRE(log.ok());
  const auto checks = replay_recompiles(*log);
  REQUIRE(checks.size() == 6);
  CHECK(checks[0].compile_id.str() == "1/1");
  CHECK(checks[0].predicted == std::vector<std::string>{"1/0: ___stack0 == 124.3185043334961"});
  CHECK(checks[1].predicted ==
        std::vector<std::string>{
            "3/0: tensor '___stack0' size mismatch at index 0. expected 177, actual 180"});
  CHECK(
      checks[2].predicted ==
      std::vector<std::string>{"4/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"});
  CHECK(checks[3].predicted ==
        std::vector<std::string>{"4/1: tensor 'x' dtype mismatch. expected Float, actual Double",
                                 "4/0: tensor 'x' dtype mismatch. expected Float, actual Double"});
  CHECK(checks[4].predicted ==
        std::vector<std::string>{
            "4/2: tensor 'x' dtype mismatch. expected Double, actual Float",
            "4/1: tensor 'x' stride mismatch at index 0. expected 32, actual 1",
            "4/0: tensor 'x' stride mismatch at index 0. expected 32, actual 1"});
  CHECK(
      checks[5].predicted ==
      std::vector<std::string>{"4/3: tensor 'x' stride mismatch at index 0. expected 1, actual 32",
                               "4/2: tensor 'x' dtype mismatch. expected Double, actual Float",
                               "4/1: act == 'relu'", "4/0: act == 'relu'"});
}

TEST_CASE("a unit's own input passes its own guards", "[guards][replay]") {
  for (const char* sample :
       {"graph_breaks", "reduce_overhead_dynamic", "resnet18", "gpt2_2layer"}) {
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log.ok());
    for (const auto& unit : log->units()) {
      if (!unit.guards()) continue;
      const auto guards = parse_unit_guards(unit);
      const auto result = evaluate_guards(guards, unit_input(unit, guards));
      INFO(sample << " " << unit.id.str() << ": " << result.reason);
      CHECK(result.reused);
    }
  }
}

TEST_CASE("reasons are compared up to whitespace and the source comment", "[guards][replay]") {
  CHECK(normalize_reason("act == 'relu'        # return torch.relu(y)  # capture.py:92\nUser") ==
        "act == 'relu'");
  CHECK(normalize_reason("  tensor 'x'   size mismatch ") == "tensor 'x' size mismatch");
  CHECK(normalize_reason("s == '#'  # c") == "s == '#'");
}
