#include "fxscope/report/fuse_report_text.h"

#include <cstdio>
#include <sstream>

namespace fxscope::report {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string bytes_text(double b) {
  if (b >= 1e6) return fmt("%.1f MB", b / 1e6);
  if (b >= 1e3) return fmt("%.1f KB", b / 1e3);
  return fmt("%.0f B", b);
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() > width) return s.substr(0, width - 1) + "~";
  s.resize(width, ' ');
  return s;
}

std::string node_list(const fusion::KernelGroup& g, const graph::Graph& graph) {
  std::string out;
  for (std::size_t i = 0; i < g.nodes.size() && i < 6; ++i) {
    out += (i ? ", " : "") + graph.node(g.nodes[i]).name;
  }
  if (g.nodes.size() > 6) out += ", ... (" + std::to_string(g.nodes.size()) + ")";
  return out;
}

void kernel_table(std::ostringstream& out, const GraphReport& g, std::size_t limit) {
  const auto& plan = g.fusion.ours;
  out << "    #    kernel                                     kind          nodes      bytes"
         "   pred us\n";
  const std::size_t shown = limit == 0 ? plan.groups.size() : std::min(limit, plan.groups.size());
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& k = plan.groups[i];
    out << "    " << pad(std::to_string(i), 5) << pad(k.name, 43)
        << pad(std::string(fusion::to_string(k.kind)), 12)
        << fmt("%7.0f", static_cast<double>(k.nodes.size())) << "   "
        << pad(bytes_text(k.bytes_read + k.bytes_written), 10)
        << fmt("%9.2f", g.ours.kernels[i].total_us) << (k.note.empty() ? "" : "   " + k.note)
        << "\n";
  }
  if (shown < plan.groups.size()) {
    out << "    ... " << plan.groups.size() - shown << " more kernels (--limit 0 shows all)\n";
  }
}

void agreement_lines(std::ostringstream& out, const GraphReport& g) {
  const auto& a = g.fusion.agreement;
  if (g.fusion.ours.mode == fusion::Mode::eager) return;  // eager plans the AOT graph
  if (g.fusion.inductor.groups.empty()) {
    out << "    Inductor: no output code for this graph\n";
    return;
  }
  out << "    Inductor launched " << a.inductor_launches << " kernels, fxscope plans "
      << a.our_launches << fmt(" (ratio %.2f); ", a.launch_ratio()) << a.exact_count() << " of "
      << a.kernels.size() << " generated kernels formed exactly\n";
  for (const auto& k : a.kernels) {
    if (k.exact) continue;
    // A subgraph's kernels hold its nodes, compared with the plan of that subgraph.
    const fusion::FusionPlan* inductor = fusion::subgraph_plan(g.fusion.inductor, k.subgraph);
    const fusion::FusionPlan* mine = fusion::subgraph_plan(g.fusion.ours, k.subgraph);
    const graph::Graph* graph =
        k.subgraph.empty() ? &g.fusion.post_grad : g.fusion.post_grad.find_subgraph(k.subgraph);
    if (inductor == nullptr || graph == nullptr) continue;
    const std::string in = k.subgraph.empty() ? "" : " (in " + k.subgraph + ")";
    const auto& theirs = inductor->groups[k.inductor_group];
    out << "      differs: Inductor " << theirs.name << in << " {" << node_list(theirs, *graph)
        << "}\n";
    if (mine && k.closest_group < mine->groups.size()) {
      const auto& ours = mine->groups[k.closest_group];
      out << "               fxscope  " << ours.name << " {" << node_list(ours, *graph) << "}\n";
    }
  }
}

void modes_lines(std::ostringstream& out, const UnitFuseReport& u) {
  out << "  predicted per mode:\n";
  for (const auto& p : u.predicted) {
    out << "    " << pad(std::string(fusion::to_string(p.mode)), 16) << fmt("%10.1f us", p.total_us)
        << fmt("%6.0f launches", static_cast<double>(p.launches))
        << fmt("   %.2fx over eager", p.speedup_over_eager)
        << (p.cuda_graphs ? "   (CUDA graphs)" : "") << "\n";
    for (const auto& why : p.cuda_graph_notes) {
      out << (p.cuda_graphs ? "        CUDA graphs, but " : "        no CUDA graphs: ") << why
          << "\n";
    }
  }
  out << "  share of predicted time / bytes:";
  double kernels_share = 0;
  for (const auto& s : u.shares) {
    out << "  " << cost::to_string(s.work_class) << fmt(" %.0f%%", 100 * s.time_share)
        << fmt(" / %.0f%%", 100 * s.bytes_share);
    kernels_share += s.time_share;
  }
  // What no kernel accounts for is the one host launch of a CUDA graph.
  if (kernels_share < 0.995) out << fmt("  graph launch %.0f%%", 100 * (1 - kernels_share));
  out << "\n";
}

}  // namespace

std::string to_text(const FuseReport& r, std::size_t limit) {
  std::ostringstream out;
  const auto& d = r.device;
  out << "fxscope fuse of " << r.path << "\ndevice " << d.name
      << fmt(": %.0f GB/s, ", d.memory_bandwidth_gbs) << fmt("fp32 %.1f TFLOP/s, ", d.fp32_tflops)
      << fmt("bf16 %.0f TFLOP/s, ", d.bf16_tflops) << fmt("launch %.1f us", d.launch_overhead_us)
      << " (" << d.source << ")\n";
  for (const auto& u : r.units) {
    out << "\n[" << u.compile_id << "] mode " << fusion::to_string(u.mode) << "\n";
    for (const auto& g : u.graphs) {
      out << "  " << g.fusion.where << ": " << g.fusion.post_grad.op_count() << " ops -> "
          << g.fusion.ours.launches() << " kernels, predicted " << fmt("%.1f us", g.ours.total_us)
          << "\n";
      for (const auto& n : g.fusion.ours.notes) out << "    note: " << n << "\n";
      for (const auto& op : g.fusion.ours.unknown_ops) {
        out << "    unknown op (runs alone): " << op.target << " x" << op.count << "\n";
      }
      kernel_table(out, g, limit);
      agreement_lines(out, g);
    }
    modes_lines(out, u);
  }
  if (!r.warnings.empty()) {
    out << "\nWarnings: " << r.warnings.size() << "\n";
    for (const auto& w : r.warnings) out << "  " << w.where << ": " << w.message << "\n";
  }
  return out.str();
}

}  // namespace fxscope::report
