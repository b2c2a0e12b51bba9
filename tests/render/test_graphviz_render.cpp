#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "fxscope/export/dot_writer.h"
#include "fxscope/export/planned_unit.h"
#include "fxscope/export/unit_document.h"
#include "graphviz_render.h"
#include "samples.h"

using namespace fxscope;

namespace {

struct Exported {
  std::string dot;
  std::size_t nodes = 0;
  std::size_t edges = 0;
  std::size_t groups = 0;
  std::vector<std::string> names;
};

Exported export_unit(const std::string& sample, const std::string& unit) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log.ok());
  auto planned = exporting::plan_unit(*log, {unit, fusion::Mode::default_mode});
  REQUIRE(planned.ok());
  Exported out;
  out.dot = exporting::document_dot(exporting::unit_document(*planned));
  for (const auto& g : planned->report.graphs) {
    out.nodes += g.fusion.post_grad.size();
    for (graph::NodeId id = 0; id < g.fusion.post_grad.size(); ++id) {
      out.edges += g.fusion.post_grad.inputs(id).size();
      out.names.push_back(g.fusion.post_grad.node(id).name);
    }
    out.groups += g.fusion.ours.groups.size();
  }
  return out;
}

// The width and height a PNG's IHDR chunk states (big-endian, after the 8-byte signature).
std::pair<std::uint32_t, std::uint32_t> png_size(const std::string& png) {
  REQUIRE(png.size() > 24);
  const auto word = [&](std::size_t at) {
    return std::uint32_t(std::uint8_t(png[at])) << 24 |
           std::uint32_t(std::uint8_t(png[at + 1])) << 16 |
           std::uint32_t(std::uint8_t(png[at + 2])) << 8 | std::uint32_t(std::uint8_t(png[at + 3]));
  };
  return {word(16), word(20)};
}

// "123pt" of the root svg element's width or height attribute.
double svg_points(const std::string& svg, const std::string& attribute) {
  const auto at = svg.find(attribute + "=\"", svg.find("<svg"));
  REQUIRE(at != std::string::npos);
  return std::stod(svg.substr(at + attribute.size() + 2));
}

}  // namespace

TEST_CASE("annotated DOT parses back through Graphviz with every node, edge and cluster",
          "[render]") {
  for (const auto& [sample, unit] : std::vector<std::pair<std::string, std::string>>{
           {"residual_mlp", "0/0"}, {"graph_breaks", "0/0"}, {"residual_mlp_train", ""}}) {
    INFO(sample);
    const Exported e = export_unit(sample, unit);
    auto counts = render::parse_dot(e.dot);
    REQUIRE(counts.ok());
    CHECK(counts->nodes == e.nodes);
    CHECK(counts->edges == e.edges);
    // One cluster per kernel group, plus one per graph when a unit has several.
    const std::size_t graphs = sample == "residual_mlp_train" ? 2 : 0;
    CHECK(counts->clusters == e.groups + graphs);
  }
  auto with_break = render::parse_dot(export_unit("graph_breaks", "0/0").dot);
  REQUIRE(with_break.ok());
  CHECK_THAT(with_break->label, Catch::Contains("graph break at"));
}

TEST_CASE("SVG is XML naming every node and PNG has the magic and the SVG's size", "[render]") {
  const Exported e = export_unit("residual_mlp", "0/0");
  auto svg = render::render_dot(e.dot, "svg");
  REQUIRE(svg.ok());
  CHECK(svg->starts_with("<?xml"));
  CHECK_THAT(*svg, Catch::Contains("</svg>"));
  for (const auto& name : e.names)
    CHECK_THAT(*svg, Catch::Contains("<title>" + name + "</title>") ||
                         Catch::Contains(">" + name + "</text>"));
  CHECK_THAT(*svg, Catch::Contains("triton_poi_fused_add_erf_mul_0"));

  REQUIRE(render::can_render("png"));
  auto png = render::render_dot(e.dot, "png");
  REQUIRE(png.ok());
  CHECK(png->substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  // Graphviz draws PNG at 96 dpi and states SVG sizes in points (72 per inch).
  const auto [width, height] = png_size(*png);
  CHECK(double(width) == Approx(svg_points(*svg, "width") * 96 / 72).margin(2));
  CHECK(double(height) == Approx(svg_points(*svg, "height") * 96 / 72).margin(2));
}

TEST_CASE("bad DOT and an unknown format are errors, not crashes", "[render]") {
  auto bad = render::parse_dot("digraph { a -> ");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::StartsWith("DOT rejected by Graphviz"));
  auto unknown = render::render_dot("digraph { a -> b }", "no-such-format");
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.error().message, Catch::Contains("no 'no-such-format' renderer"));
}

TEST_CASE("Graphviz is opened at run time, and a host without it gets one line saying what to do",
          "[render]") {
  // The build host has Graphviz (render/ is only built where its headers are), so it loaded.
  CHECK(render::graphviz_missing().empty());
  CHECK(render::probe_graphviz("libgvc.so.6", "libcgraph.so.6").empty());
  // What a GPU host without Graphviz gets, seen through names no host has.
  CHECK(render::probe_graphviz("libgvc-fxscope-absent.so.6", "libcgraph.so.6") ==
        "libgvc-fxscope-absent.so.6 not found");
  CHECK(render::probe_graphviz("libgvc.so.6", "libcgraph-fxscope-absent.so.6") ==
        "libcgraph-fxscope-absent.so.6 not found");
  // A library that is there but is not Graphviz names the first function it lacks.
  CHECK_THAT(render::probe_graphviz("libm.so.6", "libcgraph.so.6"),
             Catch::StartsWith("libm.so.6 has no gvContext"));
  CHECK(render::missing_graphviz_message("svg", "libgvc.so.6 not found") ==
        "svg export needs Graphviz (libgvc.so.6 not found): install graphviz, or use --format dot");
}
