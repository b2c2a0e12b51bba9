#include "panels/node_details.h"

#include <cstdio>

namespace fxscope::views {
namespace {

std::string dims(const std::vector<graph::Dim>& list) {
  std::string text = "[";
  for (std::size_t i = 0; i < list.size(); ++i) text += (i ? ", " : "") + list[i].to_string();
  return text + "]";
}

std::string microseconds(double us, int decimals = 1) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, us);
  return buffer;
}

}  // namespace

std::string node_details(const CanvasGraph& g, graph::NodeId id, const HeatOverlay* heat) {
  if (id >= g.graph.size()) return {};
  const graph::Node& node = g.graph.node(id);
  std::string text = node.name + "\n";
  text += "  op       " + std::string(graph::to_string(node.op)) + "\n";
  if (!node.target.empty() && node.target != node.name) text += "  target   " + node.target + "\n";
  if (node.meta) {
    if (node.meta->is_sym_scalar()) {
      text += "  value    Sym(" + node.meta->sym + ")\n";
    } else {
      text += "  dtype    " + node.meta->dtype + "\n";
      text += "  shape    " + dims(node.meta->sizes) + "\n";
      text += "  strides  " + dims(node.meta->strides) + "\n";
      if (!node.meta->device.empty()) text += "  device   " + node.meta->device + "\n";
    }
  }
  if (!node.module_path.empty()) text += "  module   " + node.module_path + "\n";
  if (node.source) {
    text += "  source   " + node.source->file + ":" + std::to_string(node.source->line);
    if (!node.source->function.empty()) text += " in " + node.source->function;
    text += "\n";
    if (!node.source->code.empty()) text += "           " + node.source->code + "\n";
  }
  const int group = id < g.group_of.size() ? g.group_of[id] : -1;
  if (group >= 0) {
    const CanvasGroup& kernel = g.groups[std::size_t(group)];
    text += "  kernel   " + kernel.name + " (" + std::string(to_string(kernel.kind)) + ", " +
            std::to_string(kernel.nodes.size()) + " nodes)\n";
    text += "  predicted " + microseconds(kernel.predicted_us) + " us for the whole kernel (" +
            std::string(fusion::to_string(g.request.mode)) + ")\n";
    if (heat != nullptr && std::size_t(group) < heat->groups.size()) {
      const GroupHeat& h = heat->groups[std::size_t(group)];
      if (h.measured) {
        text += "  measured " + microseconds(h.us) + " us on " + heat->device + " (" +
                std::to_string(h.kernels.size()) + " kernel" + (h.kernels.size() == 1 ? "" : "s") +
                ")\n";
        // Where the run names this group's own kernel (GroupHeat::own), only its figure.
        for (std::size_t k : h.kernels) {
          const report::RunKernel& run_kernel = heat->mode->kernels[k];
          if (!run_kernel.bandwidth || (h.own && k != *h.own)) continue;
          const report::RunBandwidth& bw = *run_kernel.bandwidth;
          char line[320];
          char alu[96] = "";
          if (bw.compute_bound) {
            std::snprintf(alu, sizeof alu,
                          ": compute-bound (%.1f us of instructions, %.0f%% of the issue rate)",
                          bw.alu_us, bw.share_of_issue_rate * 100);
          }
          char same[120] = "";
          if (bw.same_size_copy_kernel_us > 0 && bw.same_size_copy_us > 0) {
            std::snprintf(same, sizeof same,
                          ", %.0f%% of a same-size copy kernel, %.0f%% of a same-size cudaMemcpy",
                          bw.share_of_same_size_copy_kernel * 100,
                          bw.share_of_same_size_copy * 100);
          } else if (bw.same_size_copy_us > 0) {
            std::snprintf(same, sizeof same, ", %.0f%% of a same-size copy",
                          bw.share_of_same_size_copy * 100);
          }
          const std::string verdict =
              bw.compute_bound ? std::string(alu)
              : !bw.held_to_target
                  ? std::string()
                  : (bw.meets_target ? ": meets the 70% target" : ": below the 70% target") +
                        (bw.judged_against.empty() ? "" : " (of the " + bw.judged_against + ")");
          // The time the verdict judged, in runs that judge a kernel at its median call (the
          // "measured" above is the mean; older runs judged the mean itself).
          char timed[64] = "";
          if (bw.us > 0 && run_kernel.median_us > 0) {
            std::snprintf(timed, sizeof timed, ", %.2f us at its median call", bw.us);
          }
          std::snprintf(line, sizeof line,
                        "  bandwidth %.0f GB/s, %.0f%% of copy%s (%.1f MB%s)%s\n", bw.gbps,
                        bw.share_of_copy * 100, same, bw.bytes / 1e6, timed, verdict.c_str());
          text += line;
          // Where the judged copy ran: in the kernel's place it pays what the kernel's place costs
          // (after a GEMM in a CUDA graph, about 0.4 us on an H200), alone it does not.
          if (!bw.reference_place.empty() && bw.same_size_copy_kernel_us > 0) {
            // The place names a group, which may be long: appended, not formatted into LINE.
            text += "  reference: the copy kernel took " +
                    microseconds(bw.same_size_copy_kernel_us, 2) + " us, timed " +
                    bw.reference_place;
            if (bw.alone_copy_kernel_us > 0 &&
                bw.alone_copy_kernel_us != bw.same_size_copy_kernel_us) {
              text += " (" + microseconds(bw.alone_copy_kernel_us, 2) + " us alone)";
            }
            text += "\n";
          }
        }
        const auto own = heat->per_node.find(node.name);
        if (g.request.level == GraphLevel::kAten && own != heat->per_node.end()) {
          text +=
              "           of which this node's even share " + microseconds(own->second) + " us\n";
        }
      } else if (heat->mode != nullptr) {
        text += "  measured nothing: the run names none of its nodes\n";
      }
    }
  } else {
    text += "  kernel   none (no launch of its own: a view, an input or the output)\n";
  }
  return text;
}

}  // namespace fxscope::views
