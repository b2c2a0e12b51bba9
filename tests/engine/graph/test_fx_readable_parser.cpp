// The readable FX code parser on real TORCH_TRACE payloads (facts checked against the logs by
// hand) and on hand-made and broken inputs.

#include <catch2/catch.hpp>

#include "fxscope/graph/fx_readable_parser.h"
#include "graph_lookup.h"
#include "log_payloads.h"

using namespace fxscope;
using namespace fxscope::graph;

namespace {

using test::by_name;

ParsedGraph parse_sample(const std::string& sample, const std::string& kind,
                         std::size_t index = 0) {
  const auto all = test::payloads(sample, kind);
  REQUIRE(all.size() > index);
  return parse_fx_readable(all[index].payload, sample + " " + kind);
}

}  // namespace

TEST_CASE("residual_mlp Dynamo graph: nodes, operators, sources, modules", "[graph][readable]") {
  const ParsedGraph p = parse_sample("residual_mlp", "dynamo_output_graph");
  const Graph& g = p.graph;
  CHECK(p.warnings.empty());
  CHECK(g.name() == "GraphModule");
  CHECK(g.count(OpKind::placeholder) == 5);
  CHECK(g.op_count() == 6);
  CHECK(g.size() == 12);  // rebindings such as l_x_ = L_x_ are aliases, not nodes

  const Node& linear = by_name(g, "linear");
  CHECK(linear.target == "torch._C._nn.linear");
  REQUIRE(linear.args.size() == 3);
  CHECK(g.node(linear.args[0].as_node()).name == "L_x_");
  CHECK(linear.module_path == "linear1");
  REQUIRE(linear.source.has_value());
  CHECK(linear.source->file == "/work/main/sample_graphs/capture.py");
  CHECK(linear.source->line == 47);
  CHECK(linear.source->function == "forward");
  CHECK(linear.source->code.find("F.gelu(self.linear2") != std::string::npos);
  CHECK(by_name(g, "L_self_modules_linear2_parameters_bias_").module_path == "linear2");

  const Node& dropout = by_name(g, "dropout");
  REQUIRE(dropout.args.size() == 4);
  CHECK(dropout.args[1].kind() == Argument::Kind::floating);
  CHECK(dropout.args[1].as_float() == 0.1);
  CHECK(dropout.args[2].kind() == Argument::Kind::boolean);

  const Node& mul = by_name(g, "mul");  // `0.5 * gelu`
  CHECK(mul.target == "operator.mul");
  REQUIRE(mul.args.size() == 2);
  CHECK(mul.args[0].as_float() == 0.5);
  CHECK(g.node(mul.args[1].as_node()).name == "gelu");
  CHECK(by_name(g, "add").target == "operator.add");

  const Node& out = g.nodes().back();
  CHECK(out.op == OpKind::output);
  REQUIRE(out.args.size() == 1);
  CHECK(out.args[0].kind() == Argument::Kind::tuple);
  CHECK(out.args[0].to_string() == "(%" + std::to_string(*g.find("add")) + ",)");
  CHECK(g.users()[*g.find("gelu")] == std::vector<NodeId>{*g.find("mul")});
  CHECK(g.inputs(*g.find("add")).size() == 2);
}

TEST_CASE("residual_mlp ATen graphs: multi-line signature, metas, args", "[graph][readable]") {
  const ParsedGraph aot = parse_sample("residual_mlp", "aot_inference_graph");
  CHECK(aot.warnings.empty());
  CHECK(aot.graph.name() == "<lambda>");
  CHECK(aot.graph.count(OpKind::placeholder) ==
        5);  // one per line, with `# PlainAOTInput` comments
  CHECK(aot.graph.op_count() == 12);
  const Node& permute = by_name(aot.graph, "permute");
  CHECK(permute.target == "torch.ops.aten.permute.default");
  CHECK(permute.args[1].kind() == Argument::Kind::list);
  CHECK(permute.args[1].to_string() == "[1, 0]");
  REQUIRE(permute.meta.has_value());
  CHECK(permute.meta->to_string() == "f32[1024, 4096][1, 1024]cuda:0");
  CHECK(permute.meta->strides[0] == Dim::constant(1));
  CHECK(by_name(aot.graph, "arg2_1").meta->sizes ==
        std::vector<Dim>{Dim::constant(32), Dim::constant(1024)});
  CHECK(aot.graph.node(aot.graph.nodes().back().args[0].items()[0].as_node()).name == "add_1");

  const ParsedGraph post = parse_sample("residual_mlp", "inductor_post_grad_graph");
  CHECK(post.warnings.empty());
  CHECK(post.graph.op_count() == 12);
  CHECK(by_name(post.graph, "mm_default").target == "torch.ops.aten.mm.default");
  CHECK(by_name(post.graph, "erf").source->line == 47);
}

TEST_CASE("resnet18: module paths, conv args, 0-d and getitem", "[graph][readable]") {
  const ParsedGraph dyn = parse_sample("resnet18", "dynamo_output_graph");
  CHECK(dyn.warnings.empty());
  CHECK(dyn.graph.count(OpKind::placeholder) == 103);
  CHECK(dyn.graph.op_count() == 69);            // 61 calls + 8 `out += identity`
  const Node& out = by_name(dyn.graph, "out");  // layer1[0].conv1(x)
  CHECK(out.target == "torch.conv2d");
  CHECK(out.module_path == "layer1.0.conv1");
  CHECK(out.source->file.ends_with("torchvision/models/resnet.py"));
  CHECK(out.source->line == 92);
  CHECK(out.source->code == "out = self.conv1(x)");
  CHECK(out.args[2].is_none());
  CHECK(out.args[3].kind() == Argument::Kind::tuple);
  CHECK(out.args[3].to_string() == "(1, 1)");
  CHECK(by_name(dyn.graph, "out_8").module_path == "layer1.1.bn1");

  const ParsedGraph aot = parse_sample("resnet18", "aot_inference_graph");
  CHECK(aot.warnings.empty());
  CHECK(aot.graph.count(OpKind::placeholder) == 103);
  CHECK(aot.graph.op_count() == 411);
  const Node& pool = by_name(aot.graph, "_low_memory_max_pool_with_offsets");
  CHECK(!pool.meta.has_value());  // a tuple result has no annotation
  const Node& getitem = by_name(aot.graph, "getitem");
  CHECK(getitem.target == "operator.getitem");
  CHECK(getitem.args[1].as_int() == 0);
  CHECK(parse_sample("resnet18", "inductor_post_grad_graph").graph.op_count() == 371);
}

TEST_CASE("resnet50: in-place `+=` statements become operator.iadd nodes", "[graph][readable]") {
  const ParsedGraph p = parse_sample("resnet50", "dynamo_output_graph");
  CHECK(p.warnings.empty());
  std::size_t iadd = 0;
  for (const Node& n : p.graph.nodes()) iadd += n.target == "operator.iadd" ? 1U : 0U;
  CHECK(iadd == 16);
  const Node& out_8 = by_name(p.graph, "out_8");
  CHECK(out_8.target == "operator.iadd");
  CHECK(p.graph.node(out_8.args[0].as_node()).name == "out_7");
  CHECK(p.graph.node(out_8.args[1].as_node()).name == "input_2");
  CHECK(out_8.meta->to_string() == "f32[1, 256, 56, 56][802816, 3136, 56, 1]cuda:0");
}

TEST_CASE("an indexed assignment becomes an operator.setitem node", "[graph][readable]") {
  // Mixtral's expert routing as Dynamo records it (transformers' moe.py:
  // `inv_perm[perm] = torch.arange(perm.size(0), device=device)`).
  const ParsedGraph p = parse_fx_readable(
      "def forward(self, L_perm_: \"i64[64][1]cuda:0\"):\n"
      "    l_perm_ = L_perm_\n"
      "    inv_perm: \"i64[64][1]cuda:0\" = torch.empty_like(l_perm_)\n"
      "    arange_5: \"i64[64][1]cuda:0\" = torch.arange(64, device = 'cuda:0')\n"
      "    inv_perm[l_perm_] = arange_5;  setitem = inv_perm;  l_perm_ = arange_5 = setitem = "
      "None\n"
      "    return (inv_perm,)\n",
      "setitem");
  CHECK(p.warnings.empty());
  const Node& set = by_name(p.graph, "setitem");
  CHECK(set.target == "operator.setitem");
  REQUIRE(set.args.size() == 3);
  CHECK(p.graph.node(set.args[0].as_node()).name == "inv_perm");
  CHECK(p.graph.node(set.args[1].as_node()).name == "L_perm_");  // l_perm_ aliases it
  CHECK(p.graph.node(set.args[2].as_node()).name == "arange_5");
}

TEST_CASE("gpt2: methods, kwargs, slices, devices, tuple results", "[graph][readable]") {
  const ParsedGraph p = parse_sample("gpt2_2layer", "dynamo_output_graph");
  const Graph& g = p.graph;
  CHECK(p.warnings.empty());
  CHECK(g.count(OpKind::placeholder) == 29);
  CHECK(g.op_count() == 119);
  const Node& view = by_name(g, "input_ids");  // l_kwargs_input_ids_.view(-1, 128)
  CHECK(view.op == OpKind::call_method);
  CHECK(view.target == "view");
  CHECK(g.node(view.args[0].as_node()).name == "L_kwargs_input_ids_");
  CHECK(view.args[1].as_int() == -1);

  const Node& arange = by_name(g, "arange");
  REQUIRE(arange.kwargs.size() == 1);
  CHECK(arange.kwargs[0].first == "device");
  CHECK(arange.kwargs[0].second.kind() == Argument::Kind::symbol);
  CHECK(arange.kwargs[0].second.text() == "device(type='cuda', index=0)");

  const Node& getitem = by_name(g, "getitem");
  CHECK(getitem.args[1].to_string() == "(slice(None, None, None), slice(None, 1, None))");
  CHECK(getitem.args[1].items()[1].kind() == Argument::Kind::slice);

  const Node& result = by_name(g, "result");  // q_indices.new_ones((), dtype = torch.bool)
  CHECK(result.meta->rank() == 0);
  CHECK(result.meta->dtype == "b8");
  CHECK(result.args[1].kind() == Argument::Kind::tuple);
  CHECK(result.args[1].items().empty());
  CHECK(result.kwargs[0].second.text() == "torch.bool");

  const Node& split = by_name(g, "split");
  CHECK(!split.meta.has_value());
  CHECK(split.kwargs[0].first == "dim");
  CHECK(split.kwargs[0].second.as_int() == 2);
  CHECK(by_name(g, "eq").target == "__eq__");
}

TEST_CASE("dynamic shapes: symbolic dims and Sym placeholders", "[graph][readable]") {
  const auto graphs = test::payloads("reduce_overhead_dynamic", "dynamo_output_graph");
  REQUIRE(graphs.size() == 2);
  const ParsedGraph p = parse_fx_readable(graphs[1].payload, "dynamic");
  CHECK(p.warnings.empty());
  const Node& s77 = by_name(p.graph, "s77");
  CHECK(s77.op == OpKind::placeholder);
  REQUIRE(s77.meta.has_value());
  CHECK(s77.meta->is_sym_scalar());
  CHECK(s77.meta->sym == "s77");
  const Node& linear = by_name(p.graph, "linear");
  CHECK(linear.meta->sizes[0].is_symbolic());
  CHECK(linear.meta->sizes[0].expr == "s77");
  CHECK(linear.meta->sizes[1] == Dim::constant(1024));

  const ParsedGraph aot = parse_sample("reduce_overhead_dynamic", "aot_inference_graph", 1);
  CHECK(by_name(aot.graph, "arg2_1").meta->to_string() == "Sym(s77)");

  const ParsedGraph strided = parse_sample("graph_breaks", "dynamo_output_graph", 10);
  CHECK(by_name(strided.graph, "sin").meta->strides[1].expr == "s77");  // [1, s77]
  const ParsedGraph sym_add = parse_sample("graph_breaks", "dynamo_output_graph", 6);
  const Node& add = by_name(sym_add.graph, "add");  // linear + s38
  CHECK(sym_add.graph.node(add.args[1].as_node()).meta->sym == "s38");
}

TEST_CASE("training graphs: forward, backward and joint", "[graph][readable]") {
  const ParsedGraph bwd = parse_sample("residual_mlp_train", "aot_backward_graph");
  CHECK(bwd.warnings.empty());
  CHECK(bwd.graph.count(OpKind::placeholder) == 7);
  CHECK(bwd.graph.nodes().back().args[0].items().size() == 5);
  CHECK(by_name(bwd.graph, "convert_element_type").args[1].text() == "torch.float32");
  CHECK(by_name(bwd.graph, "mul_10").args[1].as_float() == -0.5);

  const ParsedGraph joint = parse_sample("residual_mlp_train", "aot_joint_graph");
  CHECK(joint.warnings.empty());
  CHECK(joint.graph.count(OpKind::placeholder) == 6);  // primals_1..5, tangents_1
  CHECK(!joint.graph.find("primals").has_value());
  CHECK(joint.graph.nodes().back().args[0].items().size() == 6);
  const Node& rand = by_name(joint.graph, "rand");
  CHECK(rand.kwargs.size() == 3);
  CHECK(rand.kwargs[2].second.kind() == Argument::Kind::boolean);
}

TEST_CASE("nested classes become named subgraphs", "[graph][readable]") {
  const std::string code = R"(class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[3][1]cpu"):
        l_x_ = L_x_
        wrap_body_0 = self.wrap_body_0
        # File: /m.py:5 in f, code: return wrap(g, x)
        wrap = torch.ops.higher_order.wrap(wrap_body_0, l_x_);  wrap_body_0 = l_x_ = None
        getitem: "f32[3][1]cpu" = wrap[0];  wrap = None
        neg: "f32[3][1]cpu" = -getitem
        return (neg,)

    class wrap_body_0(torch.nn.Module):
        def forward(self, l_x_: "f32[3][1]cpu"):
            # File: /m.py:2 in g, code: return x.sin()
            sin: "f32[3][1]cpu" = l_x_.sin();  l_x_ = None
            return (sin,)

    class other_body(torch.nn.Module):
        def forward(self, a: "f32[][]cpu"):
            return ()
)";
  const ParsedGraph p = parse_fx_readable(code, "nested");
  CHECK(p.warnings.empty());
  CHECK(p.graph.size() == 6);
  CHECK(by_name(p.graph, "wrap_body_0").op == OpKind::get_attr);
  CHECK(by_name(p.graph, "neg").target == "operator.neg");
  CHECK(by_name(p.graph, "neg").source->line == 5);
  REQUIRE(p.graph.subgraphs().size() == 2);
  const Graph* body = p.graph.find_subgraph("wrap_body_0");
  REQUIRE(body != nullptr);
  CHECK(body->size() == 3);
  CHECK(by_name(*body, "sin").op == OpKind::call_method);
  CHECK(by_name(*body, "sin").source->function == "g");
  CHECK(p.graph.find_subgraph("other_body")->nodes().back().args[0].items().empty());
}

TEST_CASE("source comments: several lines, and No stacktrace resets", "[graph][readable]") {
  const std::string code = R"(class M(torch.nn.Module):
    def forward(self, x: "f32[2][1]cpu"):
        # File: /a.py:1 in f, code: y = x + 1
        # File: /b.py:7 in g, code: z = h(y)
        a: "f32[2][1]cpu" = torch.ops.aten.relu.default(x)

        b: "f32[2][1]cpu" = torch.ops.aten.relu.default(a)
        # No stacktrace found for following nodes
        c: "f32[2][1]cpu" = torch.ops.aten.relu.default(b)
        return (c,)
)";
  const ParsedGraph p = parse_fx_readable(code, "comments");
  CHECK(p.warnings.empty());
  CHECK(by_name(p.graph, "a").source->file == "/b.py");
  CHECK(by_name(p.graph, "b").source->line == 7);
  CHECK(!by_name(p.graph, "c").source.has_value());
}

TEST_CASE("bad input gives warnings, never a crash", "[graph][readable][robust]") {
  CHECK(!parse_fx_readable("", "empty").warnings.empty());

  const std::string real = test::first_payload("residual_mlp", "aot_inference_graph");
  const ParsedGraph truncated = parse_fx_readable(real.substr(0, real.size() / 2), "cut");
  CHECK(!truncated.warnings.empty());
  CHECK(truncated.graph.count(OpKind::placeholder) == 5);

  const ParsedGraph cut_sig = parse_fx_readable(real.substr(0, 120), "cut signature");
  CHECK(!cut_sig.warnings.empty());

  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 7919) % 256);
  CHECK(!parse_fx_readable(garbage, "garbage").warnings.empty());
  CHECK(!parse_fx_readable(std::string(100000, '('), "parens").warnings.empty());
  CHECK(!parse_fx_readable(std::string(100000, '['), "brackets").warnings.empty());

  const std::string broken = R"(class M(torch.nn.Module):
    def forward(self, x: "f32[2][1]cpu"):
        a: "f32[2, 3][1]cpu" = torch.ops.aten.relu.default(x)
        b: "f32[2][1]cpu" = @@@ what is this
        c: "f32[2][1]cpu" = torch.ops.aten.add.Tensor(b, a)
        return (c,)
)";
  const ParsedGraph p = parse_fx_readable(broken, "broken.py");
  REQUIRE(p.warnings.size() == 2);
  CHECK(p.warnings[0].where == "broken.py line 3");
  CHECK(p.warnings[0].message.find("annotation") != std::string::npos);
  CHECK(by_name(p.graph, "a").raw_annotation == "f32[2, 3][1]cpu");
  CHECK(p.warnings[1].where == "broken.py line 4");
  const Node& b = by_name(p.graph, "b");
  CHECK(b.is_opaque());
  CHECK(b.raw_text == "@@@ what is this");
  CHECK(p.graph.inputs(*p.graph.find("c")).size() == 2);  // still refers to the opaque b
}

TEST_CASE("llama: an Ellipsis index is a symbol, not an unknown name", "[graph][readable]") {
  const ParsedGraph p = parse_sample("llama_48layer", "dynamo_output_graph");
  CHECK(p.warnings.empty());
  const Node& x1 = by_name(p.graph, "x1");
  REQUIRE(x1.args.size() == 2);
  REQUIRE(x1.args[1].kind() == Argument::Kind::tuple);
  CHECK(x1.args[1].items()[0].text() == "Ellipsis");
}
