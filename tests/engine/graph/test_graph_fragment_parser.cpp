// The `# Graph fragment:` parser on real Inductor output code and on hand-written lines.

#include <catch2/catch.hpp>

#include "fxscope/graph/graph_fragment_parser.h"
#include "graph_lookup.h"
#include "log_payloads.h"

using namespace fxscope;
using namespace fxscope::graph;

namespace {

using test::by_name;

}  // namespace

TEST_CASE("residual_mlp fragment: placeholders, num_users, metas, args", "[graph][fragment]") {
  const std::string code = test::first_payload("residual_mlp", "inductor_output_code");
  const auto fragments = find_graph_fragments(code);
  REQUIRE(fragments.size() == 1);
  CHECK(fragments[0].starts_with("#   %arg2_1 : Tensor"));
  CHECK(fragments[0].ends_with("#   return %add_1"));

  const ParsedGraph p = parse_graph_fragment(fragments[0], "residual_mlp");
  CHECK(p.warnings.empty());
  CHECK(p.graph.count(OpKind::placeholder) == 3);  // arg2_1, arg4_1, mm_default
  CHECK(p.graph.op_count() == 8);
  CHECK(by_name(p.graph, "mm_default").target == "mm_default");
  const Node& add = by_name(p.graph, "add_tensor");
  CHECK(add.op == OpKind::call_function);
  CHECK(add.target == "torch.ops.aten.add.Tensor");
  CHECK(add.num_users == 2);
  CHECK(add.meta->to_string() == "f32[32, 1024][1024, 1]cuda:0");
  REQUIRE(add.args.size() == 2);
  CHECK(p.graph.node(add.args[0].as_node()).name == "arg4_1");
  CHECK(by_name(p.graph, "mul_1").args[1].as_float() == 0.7071067811865476);
  const Node& out = p.graph.nodes().back();
  CHECK(out.op == OpKind::output);
  CHECK(p.graph.node(out.args[0].as_node()).name == "add_1");
  CHECK(p.graph.users()[*p.graph.find("add_tensor")].size() == 2);
}

TEST_CASE("gpt2 fragments: tuple results, kwargs dicts, external inputs, merging",
          "[graph][fragment]") {
  const std::string code = test::first_payload("gpt2_2layer", "inductor_output_code");
  const auto fragments = find_graph_fragments(code);
  CHECK(fragments.size() == 8);

  const ParsedGraph first = parse_graph_fragment(fragments[0], "gpt2 fragment 0");
  CHECK(first.warnings.empty());
  const Node& var_mean = by_name(first.graph, "var_mean");
  CHECK(!var_mean.meta.has_value());
  CHECK(var_mean.num_users == 2);
  REQUIRE(var_mean.kwargs.size() == 2);
  CHECK(var_mean.kwargs[0].first == "correction");
  CHECK(var_mean.kwargs[0].second.as_int() == 0);
  CHECK(var_mean.kwargs[1].second.as_bool());
  const Node& iota = by_name(first.graph, "iota");
  REQUIRE(iota.kwargs.size() == 5);
  CHECK(iota.kwargs[2].second.text() == "torch.int64");
  CHECK(iota.kwargs[3].first == "device");
  CHECK(iota.kwargs[3].second.kind() == Argument::Kind::symbol);
  CHECK(iota.kwargs[3].second.text() == "cuda:0");
  // `return %getitem_1,%buf1,%add_5`: several outputs of one kernel.
  CHECK(first.graph.nodes().back().args[0].items().size() == 3);

  // %addmm comes from an extern kernel: it is used without being listed and becomes an input.
  const ParsedGraph third = parse_graph_fragment(fragments[2], "gpt2 fragment 2");
  CHECK(third.warnings.empty());
  CHECK(by_name(third.graph, "addmm").op == OpKind::placeholder);

  const ParsedGraph merged = parse_graph_fragment(code, "gpt2 output code");
  CHECK(merged.warnings.empty());
  CHECK(merged.graph.count(OpKind::output) == 1);
  CHECK(by_name(merged.graph, "cumsum").op == OpKind::call_function);  // defined beats PlaceHolder
  std::size_t fragment_ops = 0;
  for (const auto f : fragments) fragment_ops += parse_graph_fragment(f, "f").graph.op_count();
  CHECK(merged.graph.op_count() < fragment_ops);  // fragments repeat nodes across kernels
}

TEST_CASE("fragment lines without the comment prefix and dynamic shapes", "[graph][fragment]") {
  const std::string lines =
      "%arg1_1 : Tensor \"f32[s77, 32][32, 1]cuda:0\" = PlaceHolder[target=arg1_1]\n"
      "%sin : Tensor \"f32[s77, 32][32, 1]cuda:0\"[num_users=1] = "
      "call_function[target=torch.ops.aten.sin.default](args = (%arg1_1,), kwargs = {})\n"
      "%full : Tensor \"f32[][]cuda:0\"[num_users=1] = call_function[target=torch.ops.aten.full."
      "default](args = ([], -inf), kwargs = {dtype: torch.float32, layout: torch.strided, "
      "device: cuda:0, pin_memory: False})\n"
      "return %sin\n";
  const ParsedGraph p = parse_graph_fragment(lines, "plain");
  CHECK(p.warnings.empty());
  CHECK(p.graph.size() == 4);
  CHECK(by_name(p.graph, "sin").meta->sizes[0].expr == "s77");
  const Node& full = by_name(p.graph, "full");
  CHECK(full.meta->rank() == 0);
  CHECK(full.args[0].kind() == Argument::Kind::list);
  CHECK(full.args[1].as_float() == -std::numeric_limits<double>::infinity());

  const std::string code = test::first_payload("reduce_overhead_dynamic", "inductor_output_code");
  const ParsedGraph dynamic = parse_graph_fragment(code, "dynamic");
  CHECK(dynamic.warnings.empty());
  CHECK(by_name(dynamic.graph, "add_tensor").meta->sizes[0].expr == "s77");
}

TEST_CASE("broken fragment lines give warnings, never a crash", "[graph][fragment][robust]") {
  CHECK(parse_graph_fragment("", "empty").graph.empty());
  const std::string lines =
      "#   %a : Tensor \"f32[2][1]cuda:0\" = PlaceHolder[target=a]\n"
      "#   %b : Tensor \"f32[2][1]cuda:0\"[num_users=1] = call_function[target=torch.ops.aten.\n"
      "#   %c : Tensor \"f32[2, oops\"[num_users=1] = call_function[target=x](args = (%a,), "
      "kwargs = {})\n"
      "#   something else entirely\n";
  const ParsedGraph p = parse_graph_fragment(lines, "broken");
  REQUIRE(p.warnings.size() == 3);
  CHECK(p.warnings[0].where == "broken line 2");
  CHECK(by_name(p.graph, "b").is_opaque());
  CHECK(p.warnings[1].message.find("annotation") != std::string::npos);
  CHECK(by_name(p.graph, "c").raw_annotation == "f32[2, oops");
  CHECK(p.warnings[2].where == "broken line 4");

  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 104729) % 256);
  parse_graph_fragment(garbage, "garbage");
  parse_graph_fragment("%x : = call_function[target=", "cut");
  parse_graph_fragment("%" + std::string(50000, '('), "parens");
}
