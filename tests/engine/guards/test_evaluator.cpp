#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::guards;

namespace {

// The guards of one unit of a sample log, read once per test.
GuardSet unit_guards(const std::string& sample, const std::string& id) {
  auto log = trace::read_trace(test::sample(sample));
  if (!log) FAIL(log.error().message);
  const auto* unit = log->find_unit(*trace::CompileId::parse(id));
  REQUIRE(unit != nullptr);
  REQUIRE(unit->guards() != nullptr);
  return parse_unit_guards(*unit);
}

TensorInput tensor(const std::string& source, Dims sizes) {
  TensorInput t;
  t.source = source;
  t.sizes = std::move(sizes);
  return t;
}

std::string reason(const GuardSet& guards, const ProposedInput& input) {
  const auto result = evaluate_guards(guards, input);
  return result.reused ? "reused" : result.reason;
}

}  // namespace

TEST_CASE("size, stride and dtype guards of graph_breaks 4/0 fail in Dynamo's words",
          "[guards][evaluator]") {
  const auto guards = unit_guards("graph_breaks", "4/0");

  ProposedInput batch16;
  batch16.tensors.push_back(tensor("x", {16, 32}));
  CHECK(reason(guards, batch16) == "tensor 'x' size mismatch at index 0. expected 8, actual 16");

  ProposedInput as_recorded;
  as_recorded.tensors.push_back(tensor("L['x']", {8, 32}));
  as_recorded.constants.push_back({"act", Value::of_string("relu")});
  const auto reused = evaluate_guards(guards, as_recorded);
  CHECK(reused.reused);
  CHECK(reused.checked >= 2);
  CHECK(reused.assumed > 0);  // ids, types and ambient state are assumed, not checked
  CHECK(reused.gaps.empty());

  ProposedInput as_double;
  as_double.tensor("x").dtype = parse_dtype("f64");
  CHECK(reason(guards, as_double) == "tensor 'x' dtype mismatch. expected Float, actual Double");

  ProposedInput transposed;
  transposed.tensors.push_back(tensor("x", {8, 32}));
  transposed.tensors.back().strides = Dims{1, 8};
  CHECK(reason(guards, transposed) ==
        "tensor 'x' stride mismatch at index 0. expected 32, actual 1");

  ProposedInput grad;
  grad.tensor("x").requires_grad = true;
  CHECK(reason(guards, grad) == "tensor 'x' requires_grad mismatch. expected requires_grad=0");

  ProposedInput other_gpu;
  other_gpu.tensor("x").device = parse_device("cuda:1");
  CHECK(reason(guards, other_gpu) ==
        "tensor 'x' Tensor device index mismatch. Expected device index to be 0, actual 1");

  ProposedInput on_cpu;
  on_cpu.tensor("x").device = parse_device("cpu");
  CHECK(reason(guards, on_cpu) ==
        "tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CUDA, BackendSelect, "
        "ADInplaceOrView, AutogradCUDA), actual DispatchKeySet(CPU, BackendSelect, "
        "ADInplaceOrView, AutogradCPU)");

  ProposedInput rank3;
  rank3.tensors.push_back(tensor("x", {8, 32, 1}));
  CHECK(reason(guards, rank3) == "tensor 'x' rank mismatch. expected 2, actual 3");
}

TEST_CASE("constant guards compare values and types as EQUALS_MATCH does", "[guards][evaluator]") {
  const auto guards = unit_guards("graph_breaks", "4/0");
  ProposedInput gelu;
  gelu.set_constant("act", parse_user_value("gelu"));
  CHECK(reason(guards, gelu) == "act == 'relu'");
  ProposedInput relu;
  relu.set_constant("act", parse_user_value("'relu'"));
  CHECK(reason(guards, relu) == "reused");

  const auto stack = unit_guards("graph_breaks", "1/0");
  ProposedInput item;
  item.set_constant("___stack0", Value::of_float(3.5));
  CHECK(reason(stack, item) == "___stack0 == 124.3185043334961");
  ProposedInput same;
  same.set_constant("___stack0", parse_user_value("124.3185043334961"));
  CHECK(reason(stack, same) == "reused");
  ProposedInput integer;
  integer.set_constant("___stack0", Value::of_int(124));
  CHECK(reason(stack, integer) == "___stack0 == 124.3185043334961");
}

TEST_CASE("a parameter's tensor reason names it as Dynamo does", "[guards][evaluator]") {
  const auto guards = unit_guards("graph_breaks", "0/0");
  ProposedInput half;
  half.tensor("L['self']._modules['lin1']._parameters['weight']").dtype = parse_dtype("half");
  // TENSOR_MATCH::check_verbose_nopybind appends its advice when the tensor is a Parameter.
  CHECK(reason(guards, half) ==
        "tensor 'self._modules['lin1']._parameters['weight']' dtype mismatch. expected Float, "
        "actual Half. Guard failed on a parameter, consider using "
        "torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism on "
        "parameters.");
}

TEST_CASE("symbolic shape guards of a dynamic batch are evaluated", "[guards][evaluator]") {
  const auto guards = unit_guards("reduce_overhead_dynamic", "0/0");
  ProposedInput batch4;
  batch4.tensors.push_back(tensor("x", {4, 256}));
  CHECK(reason(guards, batch4) == "reused");
  ProposedInput batch1;
  batch1.tensors.push_back(tensor("x", {1, 256}));
  CHECK(reason(guards, batch1) == "2 <= x.size()[0]");
  ProposedInput huge;
  huge.tensors.push_back(tensor("x", {std::int64_t{1} << 24, 256}));
  CHECK(reason(guards, huge) == "256*x.size()[0] <= 2147483647");
  ProposedInput narrow;
  narrow.tensors.push_back(tensor("x", {4, 128}));
  // TensorCheck::check_verbose compares every size before any stride: a contiguous [4, 128]
  // against size [None, 256], stride [256, 1] fails on size 1, not on stride 0.
  CHECK(reason(guards, narrow) == "tensor 'x' size mismatch at index 1. expected 256, actual 128");

  const auto transposed = unit_guards("graph_breaks", "4/3");
  ProposedInput square;
  square.tensors.push_back(tensor("x", {8, 32}));
  square.tensors.back().strides = Dims{1, 16};
  CHECK(reason(transposed, square) == "x.stride()[1] == x.size()[0]");
}

TEST_CASE("an unparsed guard leaves the evaluation standing and is named", "[guards][evaluator]") {
  std::ifstream in(test::data("guards/odd_tree.txt"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!text.empty());
  const auto guards = parse_guard_tree(text);
  REQUIRE(guards.warnings.size() == 2);
  CHECK(guards.warnings[0].message.find("FROBNICATE_MATCH") != std::string::npos);
  CHECK(guards.warnings[1].message.find("___weird") != std::string::npos);

  ProposedInput ok;
  ok.tensors.push_back(tensor("x", {16, 32}));
  ok.set_constant("mode", Value::of_string("train"));
  const auto result = evaluate_guards(guards, ok);
  CHECK(result.reused);
  REQUIRE(result.gaps.size() == 2);
  CHECK(result.gaps[0].where == "guard tree line 7");

  ProposedInput odd_batch;
  odd_batch.tensors.push_back(tensor("x", {12, 32}));
  CHECK(reason(guards, odd_batch) == "Eq(Mod(x.size()[0], 8), 0) and x.size()[0] <= 64");
  ProposedInput eval_mode;
  eval_mode.set_constant("mode", Value::of_string("eval"));
  CHECK(reason(guards, eval_mode) == "mode == 'train'");
  ProposedInput triple;
  triple.set_constant("k", parse_user_value("(1, 2, 3)"));
  CHECK(reason(guards, triple) == "len(k) == 2");
}

TEST_CASE("a unit without a guard tree is judged by its shape guards", "[guards][evaluator]") {
  trace::CompileUnit unit;
  unit.id = *trace::CompileId::parse("0/0");
  unit.shape_guards.push_back({"Eq(s27, 256)", {}, unit.id, 10});
  unit.shape_guards.push_back({"2 <= s77", {}, unit.id, 11});
  unit.symbols.push_back({"s27", "256", "[2, int_oo]", "L['x'].size()[1]", {}, unit.id, 8});
  unit.symbols.push_back({"s77", "4", "[2, int_oo]", "L['x'].size()[0]", {}, unit.id, 9});
  const auto guards = parse_unit_guards(unit);
  REQUIRE(guards.guards.size() == 2);
  REQUIRE(guards.warnings.size() == 1);  // says that only the shape guards are known
  ProposedInput narrow;
  narrow.tensors.push_back(tensor("x", {4, 128}));
  CHECK(reason(guards, narrow) == "Eq(s27, 256)");
  ProposedInput fine;
  fine.tensors.push_back(tensor("x", {4, 256}));
  CHECK(reason(guards, fine) == "reused");
}
