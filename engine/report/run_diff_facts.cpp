#include "run_diff_facts.h"

#include <algorithm>
#include <cctype>

#include "fxscope/core/parallel_for.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/inductor/output_code.h"

namespace fxscope::report {
namespace {

using trace::Artifact;
using trace::ArtifactKind;

// The graph whose ops say what a unit computes: the AOT graphs (inference, or forward and
// backward), else the Dynamo graph for a unit that stopped before AOTAutograd.
std::vector<const Artifact*> op_graphs(const trace::CompileUnit& unit) {
  if (const Artifact* inference = unit.find(ArtifactKind::kAotInferenceGraph)) return {inference};
  std::vector<const Artifact*> graphs;
  if (const Artifact* fwd = unit.find(ArtifactKind::kAotForwardGraph)) graphs.push_back(fwd);
  if (const Artifact* bwd = unit.find(ArtifactKind::kAotBackwardGraph)) graphs.push_back(bwd);
  if (graphs.empty()) {
    if (const Artifact* dynamo = unit.dynamo_graph()) graphs.push_back(dynamo);
  }
  return graphs;
}

std::vector<std::string> named(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (!n.empty()) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void read_launches(const trace::CompileUnit& unit, const Artifact& a, UnitFacts& facts) {
  const auto code = fusion::read_inductor_code(unit, a);
  for (const auto& launch : code.launches()) {
    LaunchFacts l;
    const inductor::SourceComments* comments = &launch.comments;
    if (launch.kind == inductor::LaunchKind::kernel) {
      l.name = launch.callee;
      l.key = kernel_key(launch.callee);
      if (launch.kernel) comments = &code.kernels()[*launch.kernel].comments;
    } else {
      l.name = launch.op;
      l.key = launch.op;
    }
    l.ops = named(comments->aten_ops);
    if (l.ops.empty() && launch.kind == inductor::LaunchKind::extern_op) l.ops = {launch.op};
    l.nodes = named(comments->source_nodes.empty() ? launch.comments.source_nodes
                                                   : comments->source_nodes);
    facts.launches.push_back(std::move(l));
  }
}

void read_unit(const trace::CompileUnit& unit, UnitFacts& facts) {
  facts.unit.compile_id = unit.id.without_attempt().str();
  if (const auto* f = unit.compiled_frame()) facts.unit.frame = *f;
  if (const auto* f = unit.user_frame()) facts.unit.user_frame = *f;
  facts.frame_key = frame_key(facts.unit.frame);
  for (const Artifact* a : op_graphs(unit)) {
    const auto parsed = graph::parse_fx_readable(a->payload.text(), a->name);
    for (const auto& node : parsed.graph.nodes()) {
      if (!node.is_op()) continue;
      ++facts.aten[node.target];
      ++facts.unit.aten_ops;
    }
  }
  for (const Artifact* a : unit.inductor_codes()) read_launches(unit, *a, facts);
  facts.unit.launches = facts.launches.size();
}

}  // namespace

std::string frame_key(const trace::StackFrame& frame) {
  const auto slash = frame.file.find_last_of('/');
  const std::string base = slash == std::string::npos ? frame.file : frame.file.substr(slash + 1);
  return base + ":" + std::to_string(frame.line) + " " + frame.function;
}

std::string kernel_key(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1])) != 0) --end;
  if (end < name.size() && end > 1 && name[end - 1] == '_') return name.substr(0, end - 1);
  return name;
}

std::vector<UnitFacts> unit_facts(const trace::TraceLog& log, const CompileTimeReport& times) {
  const auto& units = log.units();
  std::vector<UnitFacts> facts(units.size());
  parallel_for(units.size(), [&](std::size_t i) { read_unit(units[i], facts[i]); });
  for (auto& f : facts) {
    for (const auto& t : times.units) {
      if (t.compile_id != f.unit.compile_id) continue;
      f.unit.compile_s = t.compile_s();
      f.caches = t.caches;
      for (const auto& tree : {t.forward, t.backward}) {
        if (tree && tree->dynamo_s) f.dynamo_s = f.dynamo_s.value_or(0) + *tree->dynamo_s;
      }
      break;
    }
  }
  return facts;
}

}  // namespace fxscope::report
