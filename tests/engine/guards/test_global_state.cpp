#include <catch2/catch.hpp>

#include <string>

#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

// The state as the guard tree of graph_breaks prints it (inference under no_grad).
const std::string kNoGrad =
    R"(___check_global_state() against {"allow_bf16_reduce":0,"allow_fp16_reduce":0,"allow_tf32":false,"autocast_state":{"cached_enabled":true,"dtype":[15,5,5,15,5,5,15,15,5,5],"enabled":[false,false,false,false,false,false,false,false,false,false]},"default_dtype":6,"deterministic_algorithms":false,"deterministic_algorithms_warn_only":false,"grad_mode":false,"num_threads":16,"torch_function":true,"torch_function_all_disabled":false})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string reason(const std::string& expected, const std::string& actual) {
  const auto set = parse_guard_tree("+- RootGuardManager\n| +- GLOBAL_STATE: " + expected + "\n");
  ProposedInput input;
  input.observed.push_back({"GLOBAL_STATE", "", actual});
  const auto result = evaluate_guards(set, input);
  return result.reused ? "reused" : result.reason;
}

}  // namespace

TEST_CASE("GLOBAL_STATE names the fields that changed, in GlobalStateGuard's order",
          "[guards][global_state]") {
  CHECK(reason(kNoGrad, kNoGrad) == "reused");
  const auto grad = with(kNoGrad, R"("grad_mode":false)", R"("grad_mode":true)");
  CHECK(reason(kNoGrad, grad) == "GLOBAL_STATE changed: grad_mode ");
  // The arrays follow at::autocast::_AUTOCAST_SUPPORTED_DEVICES: cpu, then cuda.
  const auto cuda_on = with(grad, R"("enabled":[false,false,)", R"("enabled":[false,true,)");
  CHECK(reason(kNoGrad, cuda_on) == "GLOBAL_STATE changed: grad_mode autocast(cuda)_enabled ");
  const auto threads = with(kNoGrad, R"("num_threads":16)", R"("num_threads":8)");
  CHECK(reason(kNoGrad, threads) == "GLOBAL_STATE changed: num_threads ");
}

TEST_CASE("autocast's dtype counts only on a device where autocast is on",
          "[guards][global_state]") {
  // AutocastState::operator== skips devices with autocast off in both states.
  const auto other_dtype = with(kNoGrad, R"("dtype":[15,)", R"("dtype":[5,)");
  CHECK(reason(kNoGrad, other_dtype) == "reused");
  const auto cpu_on = with(kNoGrad, R"("enabled":[false,)", R"("enabled":[true,)");
  const auto cpu_half = with(cpu_on, R"("dtype":[15,)", R"("dtype":[5,)");
  CHECK(reason(cpu_on, cpu_half) == "GLOBAL_STATE changed: autocast(cpu)_dtype ");
  const auto uncached = with(kNoGrad, R"("cached_enabled":true)", R"("cached_enabled":false)");
  CHECK(reason(kNoGrad, uncached) == "GLOBAL_STATE changed: autocast_cache_enabled ");
  const auto all_disabled = with(kNoGrad, R"("torch_function_all_disabled":false)",
                                 R"("torch_function_all_disabled":true)");
  // Checked, but reason() names no field for it.
  CHECK(reason(kNoGrad, all_disabled) == "GLOBAL_STATE changed: ");
}
