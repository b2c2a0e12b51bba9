#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "fxscope/guards/expression.h"
#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

std::size_t count(const GuardSet& set, GuardKind kind) {
  std::size_t n = 0;
  for (const auto& g : set.guards) n += g.kind == kind ? 1 : 0;
  return n;
}

ExprResult eval_text(const std::string& text, const SourceResolver& resolve) {
  auto expr = parse_expression(text);
  REQUIRE(expr.ok());
  return evaluate(*expr, resolve);
}

}  // namespace

TEST_CASE("every guard tree of every sample parses without a gap", "[guards][parser]") {
  const char* samples[] = {"resnet18",        "resnet50",     "gpt2_2layer",
                           "gpt2_12layer",    "residual_mlp", "residual_mlp_train",
                           "pointwise_chain", "graph_breaks", "reduce_overhead_dynamic",
                           "max_autotune_mlp"};
  for (const char* sample : samples) {
    auto log = trace::read_trace(test::sample(sample));
    REQUIRE(log.ok());
    for (const auto& unit : log->units()) {
      if (!unit.guards()) continue;
      const auto set = parse_unit_guards(unit);
      INFO(sample << " " << unit.id.str());
      for (const auto& w : set.warnings) INFO(w.where << ": " << w.message);
      CHECK(count(set, GuardKind::kTensorMatch) > 0);
      // Only EQUALS_MATCH against a torch object (torch.bool) stays opaque in the samples.
      for (const auto& g : set.guards) {
        if (g.kind == GuardKind::kOpaque) CHECK(g.code.find("torch.bool") != std::string::npos);
      }
    }
  }
}

TEST_CASE("graph_breaks 4/3: tensor, constant and shape guards in Dynamo's order",
          "[guards][parser]") {
  auto log = trace::read_trace(test::sample("graph_breaks"));
  REQUIRE(log.ok());
  const auto set = parse_unit_guards(*log->find_unit(*trace::CompileId::parse("4/3")));
  CHECK(set.warnings.empty());
  const Guard* tensor = nullptr;
  for (const auto& g : set.guards) {
    if (g.kind == GuardKind::kTensorMatch) tensor = &g;
  }
  REQUIRE(tensor != nullptr);
  CHECK(tensor->source == "L['x']");
  CHECK(tensor->tensor->dtype.c10_name == "Float");
  CHECK(tensor->tensor->backend == "CUDA");
  CHECK(tensor->tensor->sizes == Dims{std::nullopt, 32});
  CHECK(tensor->tensor->strides == Dims{1, std::nullopt});
  // The epilogue LAMBDA_GUARDs come last, after everything inside the RootGuardManager.
  REQUIRE(set.guards.size() >= 3);
  CHECK(set.guards.back().kind == GuardKind::kShape);
  CHECK(set.guards.back().code == "2 <= L['x'].size()[0]");
  CHECK(set.guards[set.guards.size() - 3].code == "L['x'].stride()[1] == L['x'].size()[0]");
  bool act = false;
  for (const auto& g : set.guards) {
    if (g.kind == GuardKind::kConstant && g.source == "L['act']") {
      act = true;
      CHECK(python_repr(*g.value) == "'relu'");
      CHECK(g.comment.find("capture.py:92") != std::string::npos);
    }
  }
  CHECK(act);
  REQUIRE(set.symbols.size() == 1);
  CHECK(set.symbols[0] == std::pair<std::string, std::string>{"s77", "L['x'].size()[0]"});
}

TEST_CASE("expressions in Python and sympy form", "[guards][parser]") {
  const SourceResolver resolve = [](std::string_view s) -> std::optional<Value> {
    if (s == "s27" || s == "L['x'].size()[1]") return Value::of_int(256);
    if (s == "L['x'].size()[0]") return Value::of_int(4);
    if (s == "zf2") return Value::of_float(0.5);
    return std::nullopt;
  };
  CHECK(eval_text("Eq(s27, 256)", resolve).value.boolean);
  CHECK_FALSE(eval_text("Ne(s27, 256)", resolve).value.boolean);
  CHECK(eval_text("2 <= L['x'].size()[0] <= 8", resolve).value.boolean);
  CHECK_FALSE(eval_text("32*L['x'].size()[0] > 2147483647", resolve).value.boolean);
  CHECK(eval_text("-7 // 2 == -4 and -7 % 2 == 1", resolve).value.boolean);
  CHECK(eval_text("not math.isnan(___as_tensor(zf2).item())", resolve).value.boolean);
  CHECK(eval_text("Max(1, L['x'].size()[0]) == 4", resolve).value.boolean);
  CHECK(eval_text("L['y'].size()[0] == 3", resolve).state == ExprResult::State::kUnknown);
  // Known false on one side decides an `and` whatever the other side is.
  CHECK_FALSE(eval_text("L['y'].size()[0] == 3 and s27 == 1", resolve).value.boolean);
  CHECK(eval_text("G['F'] is G['m'].F", resolve).state == ExprResult::State::kUnknown);
  CHECK(eval_text("frob(s27)", resolve).state == ExprResult::State::kUnsupported);
}

TEST_CASE("bad and garbage guard text never crashes", "[guards][parser]") {
  const char* bad[] = {"",
                       "+-",
                       "| | | +-",
                       "+- TENSOR_MATCH: check_tensor(",
                       "+- TENSOR_MATCH",
                       "+- EQUALS_MATCH: L['a'] == ",
                       "+- LAMBDA_GUARD: ((((((",
                       "+- LAMBDA_GUARD: 1 +",
                       "+- LENGTH_CHECK: len(",
                       "+- LAMBDA_GUARD: 'unterminated",
                       "| | +- GuardManager: source=",
                       "+- LAMBDA_GUARD: a[0](1).b.c()[",
                       "+- LAMBDA_GUARD: 1 // 0 == 1",
                       "+- TENSOR_MATCH: check_tensor(L['x'], "
                       "Tensor, DispatchKeySet(CPU), torch.nope, device=0, requires_grad=False, "
                       "size=[2], stride=[1])"};
  ProposedInput input;
  input.tensors.push_back({"x", Dims{2}, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  for (const char* text : bad) {
    const auto set = parse_guard_tree(text);
    const auto result = evaluate_guards(set, input);
    CHECK((result.reused || !result.reason.empty()));
  }
  const auto deep = parse_guard_tree("+- LAMBDA_GUARD: " + std::string(100000, '(') + "1");
  CHECK(evaluate_guards(deep, input).reused);
  std::string chain = "+- LAMBDA_GUARD: 1";
  for (int i = 0; i < 20000; ++i) chain += "+1";
  CHECK(evaluate_guards(parse_guard_tree(chain), input).reused);

  std::mt19937 rng(7);
  const std::string alphabet = "|+- :()[]'\"=<>!*/%#.,LG_xs0123456789abcTENSOR_MATCH\n\t";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const auto length = rng() % 200;
    for (std::size_t i = 0; i < length; ++i) text += alphabet[rng() % alphabet.size()];
    const auto result = evaluate_guards(parse_guard_tree(text), input);
    CHECK((result.reused || !result.reason.empty()));
  }
}

TEST_CASE("a DictGuardManager's length check is kept, and a multi-line repr stays one guard",
          "[guards][parser]") {
  // Lines as PyTorch 2.11 prints an optimizer step's tree (a repr over several lines) and a
  // dict whose keys are guarded.
  const std::string tree = R"(TREE_GUARD_MANAGER:
+- RootGuardManager
| +- GuardManager: source=L['self'], accessed_by=FrameLocalsGuardAccessor(key='self', framelocals_idx=0), type=<class 'torch.optim.sgd.SGD'>, tag_safe=(False, False)
| | +- ID_MATCH: ___check_obj_id(L['self'], 140570313720512), type=SGD (
Parameter Group 0
    lr: 0.01
)  # for group in self.param_groups:  # optim/sgd.py:118 in step
| | +- DictGuardManager: source=L['self'].state, accessed_by=GetAttrGuardAccessor(state), type=<class 'collections.defaultdict'>, tag_safe=(True, False)
| | | +- KeyValueManager pair at index=0
| | | | +- ValueManager: DictGuardManager: source=L['self'].state[list(dict.keys(L['self'].state))[0]], type=<class 'dict'>, tag_safe=(True, False)
| +- DictGuardManager: source=L['cfg'], accessed_by=FrameLocalsGuardAccessor(key='cfg', framelocals_idx=1), type=<class 'dict'>, tag_safe=(True, False)
| | +- KeyValueManager pair at index=0
| | | +- KeyManager: GuardManager: source=list(dict.keys(L['cfg']))[0], type=<class 'str'>, tag_safe=(True, False)
| | | | +- EQUALS_MATCH: list(dict.keys(L['cfg']))[0] == 'a'  # sum(cfg.values())
)";
  const auto set = parse_guard_tree(tree);
  CHECK(set.warnings.empty());
  std::vector<std::string> lengths;
  for (const auto& g : set.guards) {
    if (g.tag == "DictGuardManager") lengths.push_back(g.code);
    if (g.kind == GuardKind::kId) {
      CHECK(g.code.find("Parameter Group 0") != std::string::npos);
      CHECK(g.comment.find("optim/sgd.py:118") != std::string::npos);
    }
  }
  CHECK(lengths ==
        std::vector<std::string>{"len(L['self'].state) != 1",
                                 "len(L['self'].state[list(dict.keys(L['self'].state))[0]]) != 0",
                                 "len(L['cfg']) != 1"});
  // Pairs are checked by index: a DictGuardManager never re-sorts them.
  for (const auto& node : set.nodes) {
    if (node.source == "L['cfg']") CHECK_FALSE(node.sorts_children);
  }

  // A call whose own tree saw two keys fails on the length first, as Dynamo words it.
  ProposedInput two_keys;
  two_keys.observed.push_back({"DictGuardManager", "L['cfg']", "len(L['cfg']) != 2"});
  CHECK(evaluate_guards(set, two_keys).reason == "len(cfg) != 1");
}
