#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "fxscope/graph/graph_json.h"
#include "graph_lookup.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("the fxscope JSON of a unit reloads with its graphs and kernels", "[export]") {
  auto log = trace::read_trace(test::sample("residual_mlp"));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {"0/0", fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  const graph::Document doc = exporting::unit_document(*planned);
  REQUIRE(doc.size() == 2);
  CHECK(doc.graphs()[0].level == "dynamo");
  CHECK(doc.graphs()[1].level == "post_grad");

  const std::string text = graph::to_json_text(doc, 1);
  auto back = graph::parse_document(text);
  REQUIRE(back.ok());
  REQUIRE(back->size() == doc.size());
  for (std::size_t g = 0; g < doc.size(); ++g) {
    CHECK(back->graphs()[g].graph.size() == doc.graphs()[g].graph.size());
  }
  CHECK(graph::to_json_text(*back, 1) == text);
  CHECK(back->metadata()["mode"] == "default");
  CHECK(back->metadata()["compile_id"] == "0/0");

  // The fused bias + gelu + residual: group 2 in launch order, priced, and Inductor's kernel.
  const auto& post_grad = back->graphs()[1].graph;
  const auto gelu = post_grad.find("erf");
  REQUIRE(gelu);
  const auto* kernel = back->annotation(1, *gelu, exporting::kKernelKey);
  REQUIRE(kernel);
  CHECK(*kernel == "triton_poi_fused_add_erf_mul_0");
  CHECK(*back->annotation(1, *gelu, exporting::kFusionGroupKey) == 2);
  CHECK(back->annotation(1, *gelu, exporting::kPredictedKey)->get<double>() > 0);
  CHECK(*back->annotation(1, *gelu, exporting::kInductorKernelKey) ==
        "triton_poi_fused_add_addmm_gelu_mul_0");
  // The user's gelu on the Dynamo graph names the kernel that computes it.
  const auto user_gelu = back->graphs()[0].graph.find("gelu");
  REQUIRE(user_gelu);
  const auto* kernels = back->annotation(0, *user_gelu, exporting::kKernelsKey);
  REQUIRE(kernels);
  CHECK(kernels->at(0) == "triton_poi_fused_add_erf_mul_0");

  // Drawn again from the reloaded file, the same kernels come back as clusters.
  const auto graphs = exporting::dot_graphs(*back);
  REQUIRE(graphs.size() == 1);
  REQUIRE(graphs[0].groups.size() == 3);
  CHECK(graphs[0].groups[2].name == "triton_poi_fused_add_erf_mul_0");
  CHECK(graphs[0].groups[0].kind == "extern");
}

TEST_CASE("a reloaded document without annotations draws its graphs ungrouped", "[export]") {
  graph::Document doc;
  graph::Graph g("plain");
  graph::Node x;
  x.name = "x";
  x.op = graph::OpKind::placeholder;
  x.target = "x";
  REQUIRE(g.add_node(x));
  doc.add_graph("0/0", "dynamo", g);
  // A fusion_group of the wrong type or out of range is ignored, not trusted.
  doc.annotate(0, 0, exporting::kFusionGroupKey, "two");
  const auto graphs = exporting::dot_graphs(doc);
  REQUIRE(graphs.size() == 1);
  CHECK(graphs[0].groups.empty());
  CHECK_THAT(exporting::write_dot(graphs), Catch::Contains("g0_n0 [label=\"x\\ninput\""));
}
