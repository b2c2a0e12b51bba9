#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "samples.h"

using namespace fxscope;

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t count = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

std::string unit_dot(const std::string& sample, const std::string& unit, fusion::Mode mode) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {unit, mode});
  REQUIRE(planned.ok());
  return exporting::document_dot(exporting::unit_document(*planned));
}

}  // namespace

TEST_CASE("DOT of the residual MLP: one cluster per kernel, every node and edge", "[export]") {
  auto log = trace::read_trace(test::sample("residual_mlp"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"0/0", fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  const auto& fusion = planned->report.graphs.at(0).fusion;
  const std::string dot = exporting::document_dot(exporting::unit_document(*planned));

  CHECK(dot.starts_with("digraph fxscope {"));
  // Three kernels: two extern GEMMs and the fused bias + gelu + residual.
  CHECK(occurrences(dot, "subgraph cluster_g0_k") == 3);
  CHECK_THAT(dot, Catch::Contains("triton_poi_fused_add_erf_mul_0\\npointwise, predicted"));
  CHECK_THAT(dot, Catch::Contains("extern_kernels.addmm\\nextern, predicted"));
  CHECK_THAT(dot, Catch::Contains("mode default on H200"));
  std::size_t edges = 0;
  for (graph::NodeId id = 0; id < fusion.post_grad.size(); ++id) {
    const auto& node = fusion.post_grad.node(id);
    CHECK_THAT(dot, Catch::Contains("[label=\"" + node.name));
    edges += fusion.post_grad.inputs(id).size();
  }
  CHECK(occurrences(dot, " -> ") == edges);
  // Op and shape under the name: addmm with its f32 output.
  CHECK_THAT(dot, Catch::Contains("addmm\\naddmm.default\\nf32["));
}

TEST_CASE("DOT names the unit's graph break and the recompile that made it", "[export]") {
  const std::string first = unit_dot("graph_breaks", "0/0", fusion::Mode::default_mode);
  CHECK_THAT(first, Catch::Contains("graph break at"));
  CHECK_THAT(first, Catch::Contains("Unsupported Tensor.item() call"));
  const std::string recompiled = unit_dot("graph_breaks", "4/1", fusion::Mode::default_mode);
  CHECK_THAT(recompiled, Catch::Contains("recompiled: 4/0: tensor 'x'"));
}

TEST_CASE("a training unit's forward and backward are one cluster each", "[export]") {
  const std::string dot = unit_dot("residual_mlp_train", "", fusion::Mode::default_mode);
  CHECK(occurrences(dot, "subgraph cluster_graph") == 2);
  CHECK(occurrences(dot, "subgraph cluster_g1_k") > 0);
}

TEST_CASE("labels with quotes and backslashes stay one DOT string", "[export]") {
  graph::Graph g("quoted");
  graph::Node node;
  node.name = "x";
  node.op = graph::OpKind::placeholder;
  node.target = "say \"hi\" \\ bye";
  REQUIRE(g.add_node(node));
  exporting::DotGraph dg;
  dg.title = "a \"title\"\nsecond line";
  dg.graph = &g;
  const std::string dot = exporting::write_dot({dg});
  CHECK_THAT(dot, Catch::Contains(R"(tooltip="say \"hi\" \\ bye")"));
  CHECK_THAT(dot, Catch::Contains(R"(label="a \"title\"\nsecond line")"));
}

TEST_CASE("an unknown unit is an error naming the log and the units it has", "[export]") {
  auto log = trace::read_trace(test::sample("residual_mlp"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"9/9", fusion::Mode::default_mode});
  REQUIRE_FALSE(planned.ok());
  CHECK_THAT(planned.error().message, Catch::Contains("no compile unit 9/9"));
  CHECK_THAT(planned.error().message, Catch::Contains("0/0"));
}

TEST_CASE("DOT of a training step leaves out the edges of the activations it saves", "[export]") {
  if (!std::filesystem::exists(test::sample("corpus/tv_resnet18_train_bf16"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  auto log = trace::read_trace(test::sample("corpus/tv_resnet18_train_bf16"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"0/0", fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  const graph::Document doc = exporting::unit_document(*planned);
  const auto graphs = exporting::dot_graphs(doc);
  REQUIRE(graphs.size() == 2);  // the forward and the backward
  const std::string dot = exporting::write_dot(graphs);
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const graph::Graph& graph = *graphs[g].graph;
    const auto output = graph.find("output");
    REQUIRE(output);
    const std::size_t returned = graph.inputs(*output).size();
    REQUIRE(returned > exporting::kMostDrawnEdges);
    const std::string id = "g" + std::to_string(g) + "_n" + std::to_string(*output);
    CHECK(occurrences(dot, "-> " + id + ";") == 0);
    CHECK_THAT(dot, Catch::Contains("{ rank=sink; " + id + " }"));
    CHECK_THAT(dot, Catch::Contains("returns " + std::to_string(returned) + " values"));
  }
}

TEST_CASE("DOT of a dynamic-shape graph leaves out the edges of a size read everywhere",
          "[export]") {
  if (!std::filesystem::exists(test::sample("corpus/hf_gpt2_train_dynamic"))) {
    WARN("sample_graphs/corpus/ is absent from this checkout");
    return;
  }
  // GPT-2's training forward with dynamic batch and length: each size feeds every view and
  // reshape (22 to 29 nodes); drawn, their edges from the top make the graph 3.7 times wider.
  auto log = trace::read_trace(test::sample("corpus/hf_gpt2_train_dynamic"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"", fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  const graph::Document doc = exporting::unit_document(*planned);
  const auto graphs = exporting::dot_graphs(doc);
  const std::string dot = exporting::write_dot(graphs);
  std::size_t sizes = 0;
  for (std::size_t g = 0; g < graphs.size(); ++g) {
    const graph::Graph& graph = *graphs[g].graph;
    const auto users = graph.users();
    for (graph::NodeId id = 0; id < graph.size(); ++id) {
      const auto& meta = graph.node(id).meta;
      if (!meta || !meta->is_sym_scalar() || users[id].size() <= exporting::kMostDrawnEdges) {
        continue;
      }
      ++sizes;
      const std::string node = "g" + std::to_string(g) + "_n" + std::to_string(id);
      CHECK(occurrences(dot, "  " + node + " -> ") == 0);
      CHECK_THAT(dot, Catch::Contains("read by " + std::to_string(users[id].size()) + " nodes"));
    }
  }
  CHECK(sizes >= 2);
}
