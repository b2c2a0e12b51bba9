#include "fxscope/gpu/run_unit.h"

#include "fxscope/core/text.h"
#include "fxscope/fusion/planner.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/random_inputs.h"

namespace fxscope::gpu {

ops::SymbolHints unit_hints(const trace::CompileUnit& unit) {
  ops::SymbolHints hints;
  for (const trace::ShapeSymbol& s : unit.symbols) {
    if (const auto v = text::parse_int(s.value)) hints.emplace(s.symbol, *v);
  }
  return hints;
}

const trace::CompileUnit* default_run_unit(const trace::TraceLog& log) {
  const trace::CompileUnit* first_aten = nullptr;
  for (const trace::CompileUnit& u : log.units()) {
    if (u.aot_graph() == nullptr) continue;
    if (u.find(trace::ArtifactKind::kFxGraphRunnable) != nullptr) return &u;
    if (first_aten == nullptr) first_aten = &u;
  }
  return first_aten;
}

std::string default_unit_line(const trace::CompileUnit& unit) {
  const bool runnable = unit.find(trace::ArtifactKind::kFxGraphRunnable) != nullptr;
  return "unit " + unit.id.without_attempt().str() +
         (runnable ? " (the first with an ATen graph and a runnable; --unit picks another)"
                   : " (the first with an ATen graph; none has a runnable; --unit picks another)");
}

namespace {

// The tensor constants of G whose values reach its outputs (a constant whose every use was
// folded away stays in the graph, dead).
std::size_t live_constants(const graph::Graph& g) {
  std::vector<bool> live(g.size(), false);
  for (const graph::NodeId o : output_nodes(g)) live[o] = true;
  for (auto n = static_cast<graph::NodeId>(g.size()); n-- > 0;) {
    if (!live[n]) continue;
    for (const graph::NodeId in : g.inputs(n)) live[in] = true;
  }
  std::size_t count = 0;
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    const graph::Node& node = g.node(n);
    count +=
        live[n] && node.op == graph::OpKind::get_attr && node.name.starts_with("_tensor_constant");
  }
  return count;
}

// unrecorded_constants against the compiled graphs COMPILED of the unit.
std::string unrecorded_against(const graph::Graph& eager,
                               const std::vector<fusion::GraphFusion>& compiled) {
  const std::size_t read = live_constants(eager);
  std::size_t kept = 0;
  for (const auto& f : compiled) kept += live_constants(f.post_grad);
  if (read <= kept) return "";
  return "eager computes from " + std::to_string(read - kept) +
         " tensor constants (torch.tensor(...) in the model) that the compiled graph folded into "
         "numbers; the log records no constant's value, so eager's are random here and its "
         "outputs are no reference";
}

}  // namespace

std::string unrecorded_constants(const graph::Graph& eager, const trace::CompileUnit& unit) {
  if (live_constants(eager) == 0) return "";
  return unrecorded_against(eager, fusion::fuse_unit(unit, fusion::Mode::default_mode));
}

fusion::GraphFusion planned_as_eager(fusion::GraphFusion f) {
  fusion::PlanOptions options;
  options.hints = f.hints;
  f.ours = fusion::plan(f.post_grad, fusion::Mode::eager, options);
  f.inductor = {};
  f.agreement = {};
  return f;
}

fusion::GraphFusion eager_reference(const trace::CompileUnit& unit, std::string& note) {
  auto aot = fusion::fuse_unit(unit, fusion::Mode::eager);
  fusion::GraphFusion eager = aot.empty() ? fusion::GraphFusion{} : std::move(aot.front());
  if (live_constants(eager.post_grad) == 0) return eager;
  auto compiled = fusion::fuse_unit(unit, fusion::Mode::default_mode);
  const std::string unrecorded = unrecorded_against(eager.post_grad, compiled);
  if (unrecorded.empty() || compiled.empty() || compiled.front().post_grad.empty()) return eager;
  fusion::GraphFusion post = planned_as_eager(std::move(compiled.front()));
  note =
      "eager runs the post-grad graph one op a kernel, whose constants Inductor folded, not "
      "the AOT graph: " +
      unrecorded;
  return post;
}

}  // namespace fxscope::gpu
