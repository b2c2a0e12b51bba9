// fxscope JSON: annotations, metadata and errors on a wrong version or shape.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>

#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/graph/graph_json.h"
#include "log_payloads.h"

using namespace fxscope;
using namespace fxscope::graph;

namespace {

Document sample_document() {
  Document doc;
  const std::string code = test::first_payload("residual_mlp", "inductor_post_grad_graph");
  const std::size_t g = doc.add_graph("0/0", "post_grad", parse_fx_readable(code, "pg").graph);
  const NodeId erf = *doc.graphs()[g].graph.find("erf");
  doc.annotate(g, erf, "fusion_group", 3);
  doc.annotate(g, erf, "predicted_us", 1.25);
  doc.metadata()["source"] = "residual_mlp";
  return doc;
}

}  // namespace

TEST_CASE("documents keep labels, annotations and metadata", "[graph][json]") {
  const Document doc = sample_document();
  CHECK(doc.graphs()[0].label == "[0/0] post_grad");
  const NodeId erf = *doc.graphs()[0].graph.find("erf");
  REQUIRE(doc.annotation(0, erf, "fusion_group") != nullptr);
  CHECK(*doc.annotation(0, erf, "fusion_group") == 3);
  CHECK(doc.annotation(0, erf, "missing") == nullptr);
  CHECK(doc.annotation(5, erf, "fusion_group") == nullptr);

  const nlohmann::json j = to_json(doc);
  CHECK(j["format"] == "fxscope-graph");
  CHECK(j["version"] == kJsonVersion);
  const auto& node = j["graphs"][0]["graph"]["nodes"][erf];
  CHECK(node["name"] == "erf");
  CHECK(node["meta"]["sizes"] == nlohmann::json::array({32, 1024}));
  CHECK(node["source"]["line"] == 47);

  const Result<Document> back = document_from_json(j);
  REQUIRE(back.ok());
  CHECK(*back->annotation(0, erf, "predicted_us") == 1.25);
  CHECK(back->metadata()["source"] == "residual_mlp");
  CHECK(to_json(*back) == j);
}

TEST_CASE("special values survive the round trip", "[graph][json]") {
  const std::string code = R"PY(class M(torch.nn.Module):
    def forward(self, s0: "Sym(s0)", x: "f32[s0, 2][2, 1]cpu"):
        a: "f32[s0, 2][2, 1]cpu" = torch.ops.aten.clamp.default(x, -inf, nan)
        b: "f32[s0, 2][2, 1]cpu" = torch.ops.aten.mul.Tensor(a, 1.0)
        c = torch.f(x, 'q', (1,), slice(None, 2, None), [], dim = torch.float32, z = {1: 2}, w = foo(1))
        return (b, c)
)PY";
  Document doc;
  doc.add_graph("0/0", "aot", parse_fx_readable(code, "special").graph);
  const std::string text = to_json_text(doc, 1);
  const Result<Document> back = parse_document(text);
  REQUIRE(back.ok());
  CHECK(to_json_text(*back, 1) == text);
  const Graph& g = back->graphs()[0].graph;
  CHECK(std::isnan(g.node(*g.find("a")).args[2].as_float()));
  CHECK(g.node(*g.find("b")).args[1].kind() == Argument::Kind::floating);  // 1.0 stays a float
  CHECK(g.node(*g.find("c")).kwargs[1].second.kind() == Argument::Kind::dict);
  CHECK(g.node(*g.find("c")).kwargs[1].second.to_string() == "{1: 2}");
  CHECK(g.node(*g.find("c")).kwargs[2].second.kind() == Argument::Kind::raw);
  CHECK(g.node(*g.find("s0")).meta->is_sym_scalar());
}

TEST_CASE("wrong versions and shapes are clear errors", "[graph][json]") {
  nlohmann::json j = to_json(sample_document());

  CHECK(!parse_document("{not json").ok());
  CHECK(!parse_document("[]").ok());

  nlohmann::json newer = j;
  newer["version"] = 2;
  const Result<Document> v2 = document_from_json(newer);
  REQUIRE(!v2.ok());
  CHECK(v2.error().message.find("unsupported version 2") != std::string::npos);

  nlohmann::json other = j;
  other["format"] = "something-else";
  CHECK(document_from_json(other).error().message.find("format") != std::string::npos);

  nlohmann::json bad_ref = j;
  bad_ref["graphs"][0]["graph"]["nodes"][6]["args"][0] = {{"node", 999}};
  const Result<Document> r = document_from_json(bad_ref);
  REQUIRE(!r.ok());
  INFO(r.error().message);
  CHECK(r.error().message.find("graphs[0].graph.nodes[6].args[0].node") != std::string::npos);

  nlohmann::json bad_op = j;
  bad_op["graphs"][0]["graph"]["nodes"][0]["op"] = "call_everything";
  CHECK(!document_from_json(bad_op).ok());

  nlohmann::json no_nodes = j;
  no_nodes["graphs"][0]["graph"].erase("nodes");
  CHECK(!document_from_json(no_nodes).ok());

  nlohmann::json bad_annotation = j;
  bad_annotation["graphs"][0]["annotations"]["12345"] = {{"x", 1}};
  CHECK(!document_from_json(bad_annotation).ok());
}
