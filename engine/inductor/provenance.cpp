#include "fxscope/inductor/provenance.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::inductor {

namespace {

// One of the four maps; entries that are not a list of strings are skipped with a warning.
NameSets read_map(const nlohmann::json& root, const char* key, std::string_view where,
                  Warnings& warnings) {
  const auto it = root.find(key);
  if (it == root.end()) return {};
  if (!it->is_object()) {
    warnings.push_back(Warning{std::string(where), std::string(key) + " is not a JSON object"});
    return {};
  }
  std::vector<NameSet> entries;
  for (const auto& [name, value] : it->items()) {
    NameSet entry{name, {}};
    bool ok = value.is_array();
    if (ok) {
      for (const auto& item : value) {
        if (!item.is_string()) {
          ok = false;
          break;
        }
        entry.names.push_back(item.get<std::string>());
      }
    }
    if (!ok) {
      warnings.push_back(Warning{
          std::string(where), std::string(key) + "[\"" + name + "\"] is not a list of node names"});
      continue;
    }
    entries.push_back(std::move(entry));
  }
  return NameSets(std::move(entries));
}

}  // namespace

std::vector<std::string> Provenance::post_nodes_of_kernel(std::string_view kernel) const {
  std::vector<std::string> nodes;
  for (const NameSet& entry : kernel_to_post.entries()) {
    if (handle_kernel_name(entry.key) == kernel) {
      nodes.insert(nodes.end(), entry.names.begin(), entry.names.end());
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

std::string_view handle_kernel_name(std::string_view handle) {
  const std::size_t colon = handle.rfind(':');
  if (colon == std::string_view::npos || !text::parse_int(handle.substr(colon + 1))) return handle;
  return handle.substr(0, colon);
}

Result<Provenance> parse_provenance(std::string_view json, std::string_view where) {
  // Parsing without exceptions: a malformed artifact is an Error value, never a throw.
  const nlohmann::json root = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) {
    return make_error(std::string(where) +
                      ": expected the JSON object of inductor_provenance_tracking_node_mappings");
  }
  Provenance p;
  // PyTorch before the four maps logged only the kernel-to-node one, as the artifact
  // inductor_triton_kernel_to_post_grad_nodes: {"triton_poi_fused_mul_1": ["mul"], ...}.
  if (!root.contains("cppCodeToPost") && !root.contains("preToPost")) {
    p.kernel_to_post = read_map(nlohmann::json{{"kernels", root}}, "kernels", where, p.warnings);
    return p;
  }
  p.kernel_to_post = read_map(root, "cppCodeToPost", where, p.warnings);
  p.post_to_kernel = read_map(root, "postToCppCode", where, p.warnings);
  p.post_to_pre = read_map(root, "postToPre", where, p.warnings);
  p.pre_to_post = read_map(root, "preToPost", where, p.warnings);
  return p;
}

}  // namespace fxscope::inductor
