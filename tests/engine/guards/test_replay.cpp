#include <catch2/catch.hpp>

#include <map>
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

TEST_CASE("guard_order replays Dynamo's order of checks and its names", "[guards][replay]") {
  auto log = trace::read_trace(test::sample("guard_order"));
  REQUIRE(log.ok());
  const auto checks = replay_recompiles(*log);
  REQUIRE(checks.size() == 17);
  std::map<std::string, const RecompileCheck*> by_id;
  std::size_t matched = 0;
  for (const auto& check : checks) {
    by_id[check.compile_id.str()] = &check;
    matched += check.match ? 1 : 0;
  }
  CHECK(matched == 16);
  const auto predicted = [&](const std::string& id) {
    REQUIRE(by_id.count(id) == 1);
    INFO(id << "\nrecorded:\n"
            << joined(by_id[id]->recorded) << "predicted:\n"
            << joined(by_id[id]->predicted));
    CHECK(by_id[id]->match);
    return by_id[id]->predicted;
  };
  // Every size before any stride: dim 0 dynamic, then a new width.
  CHECK(predicted("0/2").front() ==
        "0/1: tensor 'x' size mismatch at index 1. expected 64, actual 128");
  // After n failed, 1/0 checks n first: the new batch size is not what it reports.
  CHECK(predicted("1/2") ==
        std::vector<std::string>{"1/1: tensor 'x' size mismatch at index 0. expected 8, actual 16",
                                 "1/0: n == 1"});
  CHECK(predicted("3/1") == std::vector<std::string>{"3/0: 9 <= x.size()[0]"});
  CHECK(predicted("4/1").front().rfind("4/0: ___check_obj_id(act, ", 0) == 0);
  CHECK(predicted("1/3").front() == "1/2: ___check_type_id(n, 10731296), type=<class 'int'>");
  CHECK(predicted("5/2") ==
        std::vector<std::string>{"5/1: GLOBAL_STATE changed: grad_mode autocast(cuda)_enabled",
                                 "5/0: GLOBAL_STATE changed: grad_mode"});
  CHECK(predicted("6/1") == std::vector<std::string>{"6/0: tensor 'G['GUARD_TABLE']' size "
                                                     "mismatch at index 0. expected 4, actual 8"});
  CHECK(predicted("10/1") == std::vector<std::string>{"10/0: tensor '___stack0' size mismatch at "
                                                      "index 0. expected 8, actual 16"});
  CHECK(predicted("9/2").front() == "9/1: self._modules['layers']._modules['0'].scale == 1.0");

  // The one miss: 2/0 was hit again after 2/1 existed, which moved it to the front of
  // Dynamo's LRU cache list; the log records no hits, so replay lists 2/1 first.
  const auto* lru = by_id.at("2/2");
  CHECK_FALSE(lru->match);
  CHECK(lru->recorded == std::vector<std::string>(lru->predicted.rbegin(), lru->predicted.rend()));
}
