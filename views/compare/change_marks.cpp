#include "compare/change_marks.h"

#include <algorithm>
#include <map>

namespace fxscope::views {
namespace {

// Whether GROUP is drawn for one of the kernels NAMES: Inductor's groups carry the kernel names
// the diff reads from the output code; fxscope's own groups carry names of their own.
bool names_kernel(const CanvasGroup& group, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [&group](const std::string& name) {
    return std::find(group.kernel_names.begin(), group.kernel_names.end(), name) !=
           group.kernel_names.end();
  });
}

const report::UnitDiff* pair_of(const report::RunDiff& diff, const std::string& compile_id) {
  for (const auto& u : diff.matched) {
    if (u.a.compile_id == compile_id) return &u;
  }
  return nullptr;
}

bool hit_break(const std::vector<report::BreakChange>& breaks, const std::string& compile_id) {
  return std::any_of(breaks.begin(), breaks.end(), [&compile_id](const report::BreakChange& c) {
    return std::find(c.compile_ids.begin(), c.compile_ids.end(), compile_id) != c.compile_ids.end();
  });
}

}  // namespace

bool pair_changed(const report::RunDiff& diff, const report::UnitDiff& pair) {
  return pair.changed() || hit_break(diff.breaks_fixed, pair.a.compile_id) ||
         hit_break(diff.breaks_new, pair.b.compile_id);
}

QString to_text(ChangeMark mark) {
  switch (mark) {
    case ChangeMark::added:
      return QStringLiteral("added");
    case ChangeMark::removed:
      return QStringLiteral("removed");
    case ChangeMark::changed:
      return QStringLiteral("changed");
    case ChangeMark::none:
      break;
  }
  return {};
}

QColor mark_color(ChangeMark mark) {
  switch (mark) {
    case ChangeMark::added:
      return {120, 200, 120};
    case ChangeMark::removed:
      return {232, 112, 104};
    case ChangeMark::changed:
      return {244, 190, 80};
    case ChangeMark::none:
      break;
  }
  return {232, 232, 236};
}

ChangeMark unit_mark(const report::RunDiff& diff, const std::string& compile_id) {
  const report::UnitDiff* pair = pair_of(diff, compile_id);
  if (pair == nullptr) {
    const bool listed =
        std::any_of(diff.only_a.begin(), diff.only_a.end(),
                    [&](const report::DiffUnit& u) { return u.compile_id == compile_id; });
    return listed ? ChangeMark::removed : ChangeMark::none;
  }
  return pair_changed(diff, *pair) ? ChangeMark::changed : ChangeMark::none;
}

std::size_t GraphMarks::marked_nodes() const {
  return std::size_t(std::count_if(nodes.begin(), nodes.end(),
                                   [](ChangeMark m) { return m != ChangeMark::none; }));
}

std::size_t GraphMarks::marked_groups() const {
  return std::size_t(std::count_if(groups.begin(), groups.end(),
                                   [](ChangeMark m) { return m != ChangeMark::none; }));
}

GraphMarks build_graph_marks(const CanvasGraph& graph, const report::RunDiff& diff) {
  GraphMarks marks;
  marks.unit = unit_mark(diff, graph.compile_id);
  marks.nodes.assign(graph.graph.size(), ChangeMark::none);
  marks.groups.assign(graph.groups.size(), ChangeMark::none);
  if (marks.unit == ChangeMark::removed) {
    std::fill(marks.nodes.begin(), marks.nodes.end(), ChangeMark::removed);
    std::fill(marks.groups.begin(), marks.groups.end(), ChangeMark::removed);
    return marks;
  }
  const report::UnitDiff* pair = pair_of(diff, graph.compile_id);
  if (pair == nullptr) return marks;

  // Counts do not say which of several nodes of one op went: an op "after" lacks entirely is
  // removed, one it has more or fewer of is changed.
  std::map<std::string, ChangeMark> by_op;
  for (const auto& op : pair->ops) {
    by_op[op.op] = op.b == 0 ? ChangeMark::removed : ChangeMark::changed;
    if (op.a == 0) marks.only_after.push_back(op.op + " x" + std::to_string(op.b));
  }
  for (graph::NodeId id = 0; id < graph.graph.size(); ++id) {
    const auto& node = graph.graph.node(id);
    if (!node.is_op()) continue;
    if (const auto it = by_op.find(node.target); it != by_op.end()) marks.nodes[id] = it->second;
  }
  for (std::size_t g = 0; g < graph.groups.size(); ++g) {
    const CanvasGroup& group = graph.groups[g];
    for (const auto& k : pair->kernels) {
      if (k.kind == report::KernelChangeKind::added || !names_kernel(group, k.a)) continue;
      marks.groups[g] =
          k.kind == report::KernelChangeKind::removed ? ChangeMark::removed : ChangeMark::changed;
    }
    // fxscope's own groups have no Inductor kernel name to match: their nodes tell.
    const auto node_is = [&](ChangeMark mark) {
      return [&marks, mark](graph::NodeId id) {
        return id < marks.nodes.size() && marks.nodes[id] == mark;
      };
    };
    if (marks.groups[g] != ChangeMark::none || group.nodes.empty()) continue;
    if (std::all_of(group.nodes.begin(), group.nodes.end(), node_is(ChangeMark::removed))) {
      marks.groups[g] = ChangeMark::removed;
    } else if (!std::all_of(group.nodes.begin(), group.nodes.end(), node_is(ChangeMark::none))) {
      marks.groups[g] = ChangeMark::changed;
    }
  }
  for (const auto& k : pair->kernels) {
    if (k.kind != report::KernelChangeKind::added) continue;
    for (const auto& name : k.b) marks.only_after.push_back(name);
  }
  return marks;
}

std::string node_change_text(const CanvasGraph& graph, const report::RunDiff& diff,
                             graph::NodeId id) {
  const report::UnitDiff* pair = pair_of(diff, graph.compile_id);
  if (pair == nullptr || id >= graph.graph.size()) return {};
  const std::string& target = graph.graph.node(id).target;
  for (const auto& op : pair->ops) {
    if (op.op != target) continue;
    return "compared: " + op.op + " " + std::to_string(op.a) + " before, " + std::to_string(op.b) +
           " after";
  }
  return {};
}

}  // namespace fxscope::views
