#pragma once
// What Inductor says in comments about the code that follows them: before a kernel definition it
// names the source nodes, ATen ops, node mapping and the post-grad graph fragment the kernel
// computes; before a launch in call() it repeats the source nodes and, with provenance tracking
// on, gives the launch's debug handle.

#include <cstddef>
#include <string>
#include <vector>

namespace fxscope::inductor {

// One line of "# Source node to ATen node mapping:": `gelu => add, erf, mul`.
struct NodeMapping {
  std::string source;                   // may be empty: Inductor prints ` => add_tensor`
  std::vector<std::string> aten_nodes;  // post-grad node names
};

// A node defined in a "# Graph fragment:" block (`%add_tensor : Tensor ... = call_function[...]`).
struct FragmentNode {
  std::string name;          // without the '%'
  bool placeholder = false;  // `= PlaceHolder[...]`: an input of the kernel, computed elsewhere
};

// The comments right before one kernel definition or one launch; empty fields were absent.
struct SourceComments {
  std::string kernel_path;  // "# kernel path: /tmp/.../cz7n....py"
  // "# Topologically Sorted Source Nodes: [h, sum_1], Original ATen: [aten.gelu, aten.sum]";
  // names can be empty strings (`[, gelu]`): nodes Inductor made that have no source name. The
  // lists can be empty too (`[], Original ATen: []`); has_source_nodes tells whether it was there.
  bool has_source_nodes = false;
  std::vector<std::string> source_nodes;
  std::vector<std::string> aten_ops;
  std::vector<NodeMapping> node_mapping;
  // The "# Graph fragment:" block as given, each line without its "#" and leading blanks,
  // joined by '\n'; graph_fragment_line is the line of its first node (0 when absent).
  std::string graph_fragment;
  std::size_t graph_fragment_line = 0;
  std::vector<FragmentNode> fragment_nodes;  // in the order of the block
  // "# [Provenance debug handles] triton_poi_fused_add_0:3": keys of Provenance::kernel_to_post.
  std::vector<std::string> provenance_handles;
};

}  // namespace fxscope::inductor
