#include <catch2/catch.hpp>

#include <string>

#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;
using namespace fxscope::trace;

namespace {

std::vector<std::string> ids(const std::vector<CompileId>& list) {
  std::vector<std::string> out;
  for (const auto& id : list) out.push_back(id.str());
  return out;
}

std::string file_name(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

}  // namespace

TEST_CASE("graph_breaks: 11 units over 5 frames, in log order", "[trace]") {
  auto read = read_trace(test::sample("graph_breaks"));
  REQUIRE(read.ok());
  const TraceLog& log = *read;
  std::vector<std::string> unit_ids;
  for (const auto& u : log.units()) unit_ids.push_back(u.id.str());
  CHECK(unit_ids == std::vector<std::string>{"0/0", "1/0", "2/0", "3/0", "1/1", "3/1", "4/0", "4/1",
                                             "4/2", "4/3", "4/4"});
  const CompileUnit* first = log.find_unit(*CompileId::parse("0/0"));
  REQUIRE(first != nullptr);
  CHECK(first->final_attempt == 1);  // restarted after its graph break
  CHECK(first->dynamo_graph()->id.str() == "0/0_1");
  CHECK(first->user_frame()->line == 81);
  CHECK(first->user_frame()->function == "forward");
  CHECK(first->metrics->graph_op_count == 3);
  CHECK(first->metrics->guard_count == 33);
  REQUIRE(first->metrics->restart_reasons.size() == 1);
  CHECK(first->metrics->restart_reasons[0].rfind("Unsupported Tensor.item() call", 0) == 0);
  CHECK(first->metrics->entire_frame_compile_time_s == Approx(4.028646));
  CHECK_FALSE(first->metrics->fail_type.has_value());

  const CompileUnit* resume = log.find_unit(*CompileId::parse("3/1"));
  REQUIRE(resume != nullptr);
  CHECK(resume->user_frame()->function == "torch_dynamo_resume_in_forward_at_86");
  CHECK(resume->user_frame()->line == 86);
  CHECK(resume->stack.size() == 11);
  CHECK(log.find_unit(*CompileId::parse("4/4"))->metrics->guard_count == 14);
  CHECK(log.find_unit(*CompileId::parse("5/0")) == nullptr);
}

TEST_CASE("graph_breaks: 4 break artifacts, 3 distinct breaks, print reached twice", "[trace]") {
  auto read = read_trace(test::sample("graph_breaks"));
  REQUIRE(read.ok());
  const auto& breaks = read->graph_breaks();
  CHECK(read->graph_break_total() == 4);
  REQUIRE(breaks.size() == 3);

  const GraphBreak& item = breaks[0];
  CHECK(file_name(item.file) == "capture.py");
  CHECK(item.line == 83);
  CHECK(item.location() == item.file + ":83");
  CHECK(item.context ==
        "Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):");
  CHECK(item.reason == "Unsupported Tensor.item() call with capture_scalar_outputs=False");
  CHECK(
      item.explanation ==
      "Dynamo does not support tracing `Tensor.item()` with config.capture_scalar_outputs=False.");
  REQUIRE(item.hints.size() == 1);
  CHECK(item.developer_context == "call_method TensorVariable() item () {}");
  CHECK(item.gb_code == "gb0124");
  CHECK(item.link == "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0124.html");
  CHECK(item.count == 1);
  CHECK(ids(item.compile_ids) == std::vector<std::string>{"0/0"});
  REQUIRE(item.user_stack.size() == 8);
  CHECK(item.user_stack.front().function == "<module>");
  CHECK(item.user_stack.back().line == 83);
  CHECK(item.user_stack.back().function == "forward");
  CHECK(item.user_stack.back().code == "if h.sum().item() > 0:  # .item() -> graph break");

  const GraphBreak& print = breaks[1];
  CHECK(print.line == 85);
  CHECK(print.reason == "Failed to trace builtin operator");
  CHECK(print.hints.size() == 3);
  CHECK(print.hints[2] == "Please report an issue to PyTorch.");
  CHECK(print.gb_code == "gb0059");
  CHECK(print.count == 2);
  CHECK(ids(print.compile_ids) == std::vector<std::string>{"1/0", "1/1"});

  const GraphBreak& nonzero = breaks[2];
  CHECK(nonzero.line == 86);
  CHECK(nonzero.reason == "Dynamic shape operator");
  CHECK(nonzero.developer_context == "aten.nonzero.default");
  CHECK(nonzero.gb_code == "gb0036");
  CHECK(ids(nonzero.compile_ids) == std::vector<std::string>{"2/0"});
  // The chained Python traceback after the user stack is not part of it.
  CHECK(nonzero.user_stack.size() == 8);

  const CompileUnit* unit = read->find_unit(*CompileId::parse("1/1"));
  REQUIRE(unit != nullptr);
  CHECK(unit->graph_breaks == std::vector<std::size_t>{1});
}

TEST_CASE("graph_breaks: recompile reasons in plain-text and JSON-list form", "[trace]") {
  auto read = read_trace(test::sample("graph_breaks"));
  REQUIRE(read.ok());
  const auto& recompiles = read->recompiles();
  REQUIRE(recompiles.size() == 6);
  std::vector<std::string> recompiled;
  for (const auto& r : recompiles) recompiled.push_back(r.id.str());
  CHECK(recompiled == std::vector<std::string>{"1/1", "3/1", "4/1", "4/2", "4/3", "4/4"});

  // Plain text with a user stack.
  REQUIRE(recompiles[0].reasons.size() == 1);
  const RecompileReason& stack0 = recompiles[0].reasons[0];
  CHECK(stack0.failed_id.str() == "1/0");
  CHECK(stack0.guard == "___stack0 == 124.3185043334961");
  CHECK(stack0.text.rfind("___stack0 == 124.3185043334961      ", 0) == 0);
  CHECK(stack0.text.find("# if h.sum().item() > 0:") != std::string::npos);
  REQUIRE(stack0.user_stack.size() == 1);
  CHECK(stack0.user_stack[0].line == 83);
  CHECK(stack0.user_stack[0].code == "if h.sum().item() > 0:  # .item() -> graph break");

  REQUIRE(recompiles[1].reasons.size() == 1);
  CHECK(recompiles[1].reasons[0].text ==
        "tensor '___stack0' size mismatch at index 0. expected 177, actual 180");
  CHECK(recompiles[2].reasons[0].text ==
        "tensor 'x' size mismatch at index 0. expected 8, actual 16");

  // JSON list, newest cached entry first.
  const auto& dtype = recompiles[3].reasons;
  REQUIRE(dtype.size() == 2);
  CHECK(dtype[0].failed_id.str() == "4/1");
  CHECK(dtype[0].text == "tensor 'x' dtype mismatch. expected Float, actual Double");
  CHECK(dtype[1].failed_id.str() == "4/0");
  const auto& stride = recompiles[4].reasons;
  REQUIRE(stride.size() == 3);
  CHECK(stride[1].text == "tensor 'x' stride mismatch at index 0. expected 32, actual 1");
  const auto& act = recompiles[5].reasons;
  REQUIRE(act.size() == 4);
  CHECK(act[0].text == "tensor 'x' stride mismatch at index 0. expected 1, actual 32");
  CHECK(act[2].failed_id.str() == "4/1");
  CHECK(act[2].guard == "act == 'relu'");
  REQUIRE(act[2].user_stack.size() == 1);
  CHECK(act[2].user_stack[0].line == 92);

  const CompileUnit* unit = read->find_unit(*CompileId::parse("4/3"));
  REQUIRE(unit != nullptr);
  REQUIRE(unit->recompile.has_value());
  CHECK(recompiles[*unit->recompile].id.str() == "4/3");
  CHECK(read->find_unit(*CompileId::parse("4/0"))->recompile == std::nullopt);
}

TEST_CASE("graph_breaks: symbols and guards of the unbacked float", "[trace]") {
  auto read = read_trace(test::sample("graph_breaks"));
  REQUIRE(read.ok());
  const CompileUnit* unit = read->find_unit(*CompileId::parse("1/1"));
  REQUIRE(unit != nullptr);
  CHECK(unit->final_attempt == 2);     // restarted at the break, then again
  REQUIRE(unit->symbols.size() == 3);  // one per attempt
  CHECK(unit->symbols[0].symbol == "zf2");
  CHECK(unit->symbols[0].source == "L['___stack0']");
  CHECK(unit->symbols[0].value == "121.93737030029297");
  CHECK(unit->symbols[0].id.attempt == 0);
  CHECK(unit->symbols[2].id.str() == "1/1_2");
  REQUIRE_FALSE(unit->shape_guards.empty());
  CHECK(unit->shape_guards[0].expr == "zf2 > 0.0");
  CHECK(unit->shape_guards[0].user_stack.at(0).function == "torch_dynamo_resume_in_forward_at_83");
}
