// Generates every fused group of a unit's plans and names each file after its unit and group, so
// that a directory of them sorts in launch order per graph.

#include "fxscope/codegen/unit_kernel_sources.h"

#include <cstdio>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/codegen/padded_outputs.h"

namespace fxscope::codegen {
namespace {

// A file name of letters, digits, '-', '_' and '.' alone: a unit id's '/' becomes '-'.
std::string file_safe(const std::string& s) {
  std::string out;
  for (const char c : s) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == '-';
    out += keep ? c : (c == '/' ? '-' : '_');
  }
  return out;
}

// Where a group is: its graph's place in the log and, for a subgraph's group, the subgraph.
struct GroupPlace {
  const graph::Graph& graph;
  const ops::SymbolHints& hints;
  std::string where;  // "[0/0] inductor_post_grad_graph line 12" or "..., subgraph true_graph_0"
  fusion::Mode mode;
};

std::string header(const GroupPlace& at, const fusion::KernelGroup& group,
                   const GeneratedKernel& k) {
  std::string nodes;
  for (const graph::NodeId n : group.nodes) {
    nodes += (nodes.empty() ? "" : " ") + at.graph.node(n).name;
  }
  std::string text = "// fxscope: generated for " + at.where + ", " +
                     std::string(fusion::to_string(at.mode)) + " mode\n";
  text += "// group " + std::to_string(group.id) + " " + group.name + " (" +
          std::string(fusion::to_string(group.kind)) + ")\n";
  text += "// nodes: " + nodes + "\n";
  text += "// launch: " + k.entry + "<<<" + std::to_string(k.grid) + ", " +
          std::to_string(k.block) + ", " + std::to_string(k.shared_bytes) + ">>>: " + k.summary +
          "\n\n";
  return text;
}

Result<std::string> kernel_source(const GroupPlace& at, const fusion::KernelGroup& group,
                                  bool with_prelude) {
  if (group.kind == fusion::GroupKind::combo) {
    return make_error(
        group.name + " is a combo kernel (foreach sub-kernels in one launch): no generated kernel");
  }
  if (!has_generated_kernel(at.graph, group)) {
    return make_error(group.name +
                      " runs in a library (cuBLAS, cuDNN or fxscope's attention "
                      "kernel): no generated kernel");
  }
  CodegenOptions options;
  options.hints = at.hints;
  // As `run` generates it on the GPU the launch shapes are sized for (an H200: sm_90, clusters).
  options.clusters = true;
  auto k = generate(at.graph, group, options);
  if (!k) return k.error();
  std::string source = k->source;
  if (!with_prelude) {
    constexpr std::string_view kPreludeEnd = "// ---- end of prelude ----\n";
    const auto end = source.find(kPreludeEnd);
    if (end != std::string::npos) {
      source =
          "// (fxscope's prelude of helpers left out: `fxscope-cli fuse --cuda-source DIR` "
          "writes it in full)\n" +
          source.substr(end + kPreludeEnd.size());
    }
  }
  return header(at, group, *k) + source;
}

// Every group of PLAN (planned on AT's graph) as a file named PREFIX, group id and name, and
// then its subgraphs' groups (torch.cond's branches, which Inductor generates kernels for too).
void add_plan_sources(const GroupPlace& at, const fusion::FusionPlan& plan,
                      const std::string& prefix, UnitKernelSources& out) {
  for (const fusion::KernelGroup& group : plan.groups) {
    if (group.kind == fusion::GroupKind::combo) {
      ++out.combo_groups;
      continue;
    }
    if (!has_generated_kernel(at.graph, group)) {
      ++out.library_groups;
      continue;
    }
    // As `run` does: a padded copy the group's kernel cannot store is a kernel of its own.
    auto made = make_whole_or_split(
        at.graph, group, [&](const fusion::KernelGroup& k) { return kernel_source(at, k, true); });
    if (!made) {
      out.refused.push_back(at.where + ": " + made.error().message);
      continue;
    }
    for (auto& [g, source] : *made) {
      char number[16];
      std::snprintf(number, sizeof number, "_g%03zu_", g.id);
      // Inductor's names can outgrow a file name; the group id keeps a cut one unique.
      out.files.push_back(
          {file_safe(prefix + number + g.name.substr(0, 120)) + ".cu", std::move(source)});
    }
  }
  for (const fusion::SubgraphPlan& sp : plan.subgraphs) {
    const graph::Graph* sub = at.graph.find_subgraph(sp.name);
    if (sub == nullptr) {
      out.refused.push_back(at.where + ": subgraph " + sp.name + " is planned but not in the log");
      continue;
    }
    const GroupPlace inner{*sub, at.hints, at.where + ", subgraph " + sp.name, at.mode};
    add_plan_sources(inner, sp.plan, prefix + "_" + sp.name, out);
  }
}

}  // namespace

Result<std::string> group_kernel_source(const fusion::GraphFusion& f,
                                        const fusion::KernelGroup& group, bool with_prelude) {
  return kernel_source({f.post_grad, f.hints, f.where, f.ours.mode}, group, with_prelude);
}

Result<UnitKernelSources> unit_kernel_sources(const trace::TraceLog& log, fusion::Mode mode,
                                              const std::string& unit_id) {
  UnitKernelSources out;
  std::string known;
  bool found = false;
  for (const trace::CompileUnit& unit : log.units()) {
    const std::string id = unit.id.without_attempt().str();
    known += (known.empty() ? "" : ", ") + id;
    if (!unit_id.empty() && id != unit_id) continue;
    found = true;
    const std::vector<fusion::GraphFusion> fusions = fusion::fuse_unit(unit, mode);
    for (std::size_t gi = 0; gi < fusions.size(); ++gi) {
      const fusion::GraphFusion& f = fusions[gi];
      // A backward graph's groups restart their numbering: the graph's index keeps names apart.
      const std::string graph_tag = fusions.size() > 1 ? "_graph" + std::to_string(gi) : "";
      add_plan_sources({f.post_grad, f.hints, f.where, f.ours.mode}, f.ours, id + graph_tag, out);
    }
  }
  if (!found) {
    return make_error(log.path() + ": no compile unit " + unit_id + " (the log has " + known + ")");
  }
  return out;
}

}  // namespace fxscope::codegen
