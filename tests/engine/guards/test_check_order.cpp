#include <catch2/catch.hpp>

#include <string>

#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

// A cache entry of f(x, n) as Dynamo prints it: x before n.
constexpr const char* kTree = R"(TREE_GUARD_MANAGER:
+- RootGuardManager
| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None  # _dynamo/output_graph.py:951
| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', framelocals_idx=0), type=<class 'torch.Tensor'>
| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA), torch.float32, device=0, requires_grad=False, size=[8, 32], stride=[32, 1])  # return x * n
| +- GuardManager: source=L['n'], accessed_by=FrameLocalsGuardAccessor(key='n', framelocals_idx=1), type=<class 'int'>
| | +- EQUALS_MATCH: L['n'] == 1  # return x * n
+- LAMBDA_GUARD: L['x'].size()[0] <= 64  # (epilogue)
)";

ProposedInput call(Dims x_sizes, std::int64_t n) {
  ProposedInput input;
  input.tensor("x").sizes = std::move(x_sizes);
  input.set_constant("n", Value::of_int(n));
  return input;
}

}  // namespace

TEST_CASE("the tree keeps each manager's guards and children, the epilogue last",
          "[guards][order]") {
  const auto set = parse_guard_tree(kTree);
  REQUIRE(set.guards.size() == 4);
  REQUIRE(set.nodes.size() == 3);
  CHECK(set.nodes[0].guards.size() == 1);  // DEFAULT_DEVICE, on the root
  CHECK(set.nodes[0].children == std::vector<std::size_t>{1, 2});
  CHECK(set.nodes[1].source == "L['x']");
  CHECK(set.nodes[2].source == "L['n']");
  REQUIRE(set.epilogue.size() == 1);
  CHECK(set.guards[set.epilogue[0]].code == "L['x'].size()[0] <= 64");
}

TEST_CASE("a manager's children are re-sorted by failure count, as Dynamo's fast check does",
          "[guards][order]") {
  const auto set = parse_guard_tree(kTree);
  CheckOrder order = fresh_order(set);

  // n fails after x passed: the root counts the failure against n and sorts it first.
  const auto first = evaluate_call(set, call({8, 32}, 2), order);
  CHECK(first.reason == "n == 1");
  CHECK(order.children[0] == std::vector<std::size_t>{2, 1});

  // Both fail now. A fresh entry names x, checked first in the tree; this entry checks n first.
  const auto both = call({16, 32}, 3);
  CHECK(evaluate_guards(set, both).reason ==
        "tensor 'x' size mismatch at index 0. expected 8, actual 16");
  CHECK(evaluate_call(set, both, order).reason == "n == 1");
  // Failing on the first child sorts nothing.
  CHECK(order.children[0] == std::vector<std::size_t>{2, 1});
  CHECK(order.fail_counts[2] == 2);
  CHECK(order.fail_counts[1] == 0);
}

TEST_CASE("the epilogue runs after the whole tree", "[guards][order]") {
  const auto set = parse_guard_tree(kTree);
  // Size 128 fails both the TENSOR_MATCH and the epilogue's bound: the tree's guard wins.
  CHECK(evaluate_guards(set, call({128, 32}, 1)).reason ==
        "tensor 'x' size mismatch at index 0. expected 8, actual 128");
}

TEST_CASE("checks only the call's own guards print are compared as printed", "[guards][order]") {
  const auto set = parse_guard_tree(kTree);
  ProposedInput moved = call({8, 32}, 1);
  moved.observed.push_back({"DEFAULT_DEVICE", "", "utils_device.CURRENT_DEVICE == None"});
  CHECK(evaluate_guards(set, moved).reused);
  moved.observed.back().code = "utils_device.CURRENT_DEVICE == device(type='cuda', index=0)";
  CHECK(evaluate_guards(set, moved).reason == "utils_device.CURRENT_DEVICE == None");
}
