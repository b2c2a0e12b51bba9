// Reads a unit's graphs, output code and provenance, and plans and compares them.

#include "fxscope/fusion/unit_fusion.h"

#include <optional>

#include "fxscope/core/text.h"
#include "fxscope/fusion/core_aten_graph.h"
#include "fxscope/fusion/cuda_graph_check.h"
#include "fxscope/fusion/inductor_groups.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/inductor/output_code.h"
#include "fxscope/inductor/provenance.h"

namespace fxscope::fusion {
namespace {

std::string where_of(const trace::Artifact& a) {
  return "[" + a.id.str() + "] " + a.name + " line " + std::to_string(a.line);
}

}  // namespace

PlanOptions plan_options(const trace::CompileUnit& unit, PlanOptions options) {
  for (const trace::ShapeSymbol& s : unit.symbols) {
    if (options.hints.count(s.symbol)) continue;
    if (const auto v = text::parse_int(s.value)) options.hints.emplace(s.symbol, *v);
  }
  options.static_inputs = cudagraph_static_inputs(unit);
  options.inference = unit.find(trace::ArtifactKind::kAotForwardGraph) == nullptr &&
                      unit.find(trace::ArtifactKind::kAotBackwardGraph) == nullptr;
  return options;
}

inductor::OutputCode read_inductor_code(const trace::CompileUnit& unit,
                                        const trace::Artifact& code) {
  if (code.kind != trace::ArtifactKind::kAotWrapperCode) {
    return inductor::parse_output_code(code.payload.text(), where_of(code));
  }
  // The wrapper launches what the autotune module (when logged) defines with Inductor's headers.
  const trace::Artifact* autotune = unit.find(trace::ArtifactKind::kAutotuneCode);
  return inductor::parse_aot_wrapper_code(
      code.payload.text(), autotune ? autotune->payload.text() : std::string(), where_of(code));
}

std::vector<GraphFusion> fuse_unit(const trace::CompileUnit& unit, Mode mode,
                                   const PlanOptions& options) {
  const PlanOptions opts = plan_options(unit, options);
  std::vector<GraphFusion> out;
  std::vector<const trace::Artifact*> graphs = unit.find_all(trace::ArtifactKind::kPostGradGraph);
  const std::vector<const trace::Artifact*> codes = unit.find_all(trace::ArtifactKind::kOutputCode);
  std::optional<inductor::Provenance> provenance;
  if (const trace::Artifact* p = unit.find(trace::ArtifactKind::kProvenanceMappings)) {
    auto parsed = inductor::parse_provenance(p->payload.text(), where_of(*p));
    if (parsed) provenance = std::move(*parsed);
  }
  const bool aot_only = graphs.empty() || mode == Mode::eager;
  if (aot_only) graphs = unit.aot_graphs();
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    GraphFusion fusion;
    fusion.where = where_of(*graphs[i]);
    fusion.hints = opts.hints;
    graph::ParsedGraph parsed = graph::parse_fx_readable(graphs[i]->payload.text(), fusion.where);
    fusion.post_grad = std::move(parsed.graph);
    fusion.warnings = std::move(parsed.warnings);
    // An exported program keeps composite ops and prints no strides: it is planned and run as the
    // core ATen graph AOTInductor compiles (ExportedProgram.run_decompositions()).
    const bool exported = graphs[i]->name == "exported_program";
    if (aot_only && (exported || has_export_composite_ops(fusion.post_grad))) {
      CoreAtenGraph core = core_aten_graph(fusion.post_grad, fusion.where, opts.hints);
      fusion.post_grad = std::move(core.graph);
      fusion.warnings.insert(fusion.warnings.end(), core.warnings.begin(), core.warnings.end());
    }
    if (aot_only && mode != Mode::eager && !exported) {
      fusion.warnings.push_back({fusion.where,
                                 "no post-grad graph: planned the AOT graph, "
                                 "before Inductor's decompositions"});
    }
    fusion.ours = plan(fusion.post_grad, mode, opts);
    // The N-th output code; AOTInductor writes its one graph's code as C++ instead.
    const trace::Artifact* code = nullptr;
    if (i < codes.size()) {
      code = codes[i];
    } else if (codes.empty() && i + 1 == graphs.size()) {
      code = unit.find(trace::ArtifactKind::kAotWrapperCode);
    }
    if (!aot_only && code != nullptr) {
      fusion.inductor = inductor_plan(read_inductor_code(unit, *code), fusion.post_grad,
                                      provenance ? &*provenance : nullptr);
      fusion.agreement = compare_plans(fusion.ours, fusion.inductor);
    }
    out.push_back(std::move(fusion));
  }
  if (out.empty()) {
    GraphFusion empty;
    empty.where = "[" + unit.id.str() + "]";
    empty.warnings.push_back({empty.where, "the unit has no ATen-level graph: nothing to plan"});
    empty.ours.mode = mode;
    empty.ours.notes.push_back("no ATen graph in the log for this unit");
    out.push_back(std::move(empty));
  }
  return out;
}

}  // namespace fxscope::fusion
