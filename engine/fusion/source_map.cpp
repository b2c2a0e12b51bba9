// Post-grad -> Dynamo node mapping.

#include "fxscope/fusion/source_map.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

namespace fxscope::fusion {

std::vector<std::vector<graph::NodeId>> map_to_dynamo(const graph::Graph& post_grad,
                                                      const graph::Graph& dynamo,
                                                      const inductor::Provenance* provenance) {
  std::vector<std::vector<graph::NodeId>> result(post_grad.size());
  // Source locations of the Dynamo graph's ops: one statement can hold several ops.
  std::map<std::tuple<std::string, std::int64_t, std::string>, std::vector<graph::NodeId>> by_line;
  for (graph::NodeId id = 0; id < dynamo.size(); ++id) {
    const graph::Node& node = dynamo.node(id);
    if (node.is_op() && node.source) {
      by_line[{node.source->file, node.source->line, node.source->code}].push_back(id);
    }
  }
  for (graph::NodeId id = 0; id < post_grad.size(); ++id) {
    const graph::Node& node = post_grad.node(id);
    std::vector<graph::NodeId>& out = result[id];
    if (provenance) {
      if (const auto* pre = provenance->post_to_pre.find(node.name)) {
        for (const std::string& name : *pre) {
          if (const auto found = dynamo.find(name)) out.push_back(*found);
        }
      }
    }
    if (out.empty() && node.source) {
      const auto it = by_line.find({node.source->file, node.source->line, node.source->code});
      if (it != by_line.end()) out = it->second;
    }
    std::sort(out.begin(), out.end());
  }
  return result;
}

}  // namespace fxscope::fusion
