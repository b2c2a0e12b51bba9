#include "fxscope/inductor/source_comment_collector.h"

#include <string>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::inductor {

namespace {

constexpr std::string_view kKernelPath = "kernel path:";
constexpr std::string_view kSourceNodes = "Topologically Sorted Source Nodes:";
constexpr std::string_view kMapping = "Source node to ATen node mapping:";
constexpr std::string_view kFragment = "Graph fragment:";
constexpr std::string_view kHandles = "[Provenance debug handles]";

// "a, , b" -> {"a", "", "b"}; an empty list gives no names (not one empty name).
std::vector<std::string> split_names(std::string_view list) {
  std::vector<std::string> names;
  if (text::trim(list).empty()) return names;
  for (const std::string_view part : text::split_top_level(list, ",")) {
    names.emplace_back(text::trim(part));
  }
  return names;
}

}  // namespace

void SourceCommentCollector::add(std::string_view comment, std::size_t line) {
  if (!comment.empty() && comment.front() == '#') comment.remove_prefix(1);
  const std::string_view t = text::trim(comment);
  if (text::starts_with(t, kKernelPath)) {
    // A kernel path starts the header of the next kernel: what came before belonged to nothing.
    comments_ = SourceComments{};
    comments_.kernel_path = std::string(text::trim(t.substr(kKernelPath.size())));
    section_ = Section::none;
    empty_ = false;
  } else if (text::starts_with(t, kSourceNodes)) {
    add_source_nodes(t.substr(kSourceNodes.size()), line);
  } else if (t == kMapping) {
    section_ = Section::mapping;
  } else if (t == kFragment) {
    section_ = Section::fragment;
  } else if (text::starts_with(t, kHandles)) {
    for (std::string& handle : split_names(t.substr(kHandles.size()))) {
      if (!handle.empty()) comments_.provenance_handles.push_back(std::move(handle));
    }
    section_ = Section::none;
    empty_ = false;
  } else if (section_ == Section::mapping && t.find("=>") != std::string_view::npos) {
    add_mapping(t, line);
  } else if (section_ == Section::fragment) {
    add_fragment_line(t, line);
  } else {
    section_ = Section::none;
  }
}

void SourceCommentCollector::add_source_nodes(std::string_view rest, std::size_t line) {
  // A second header with no definition or launch between: the first one described nothing.
  if (comments_.has_source_nodes) {
    std::string path = std::move(comments_.kernel_path);
    comments_ = SourceComments{};
    comments_.kernel_path = std::move(path);
  }
  section_ = Section::none;
  empty_ = false;
  constexpr std::string_view kSeparator = "], Original ATen: [";
  rest = text::trim(rest);
  const std::size_t sep = rest.find(kSeparator);
  if (rest.empty() || rest.front() != '[' || rest.back() != ']' || sep == std::string_view::npos) {
    warn(line, "expected `# Topologically Sorted Source Nodes: [...], Original ATen: [...]`");
    return;
  }
  comments_.has_source_nodes = true;
  comments_.source_nodes = split_names(rest.substr(1, sep - 1));
  const std::size_t ops = sep + kSeparator.size();
  comments_.aten_ops = split_names(rest.substr(ops, rest.size() - 1 - ops));
}

void SourceCommentCollector::add_mapping(std::string_view rest, std::size_t line) {
  const std::size_t arrow = rest.find("=>");
  NodeMapping mapping;
  mapping.source = std::string(text::trim(rest.substr(0, arrow)));
  mapping.aten_nodes = split_names(rest.substr(arrow + 2));
  if (mapping.aten_nodes.empty()) warn(line, "a node mapping line maps to no ATen node");
  comments_.node_mapping.push_back(std::move(mapping));
}

void SourceCommentCollector::add_fragment_line(std::string_view rest, std::size_t line) {
  if (comments_.graph_fragment_line == 0) {
    comments_.graph_fragment_line = line;
  } else {
    comments_.graph_fragment += '\n';
  }
  comments_.graph_fragment += rest;
  if (rest.empty() || rest.front() != '%') return;
  const std::size_t end = rest.find_first_of(" :", 1);
  FragmentNode node;
  node.name = std::string(rest.substr(1, end == std::string_view::npos ? end : end - 1));
  node.placeholder = rest.find("= PlaceHolder[") != std::string_view::npos;
  if (!node.name.empty()) comments_.fragment_nodes.push_back(std::move(node));
}

SourceComments SourceCommentCollector::take() {
  SourceComments out = std::move(comments_);
  comments_ = SourceComments{};
  section_ = Section::none;
  empty_ = true;
  return out;
}

void SourceCommentCollector::warn(std::size_t line, std::string message) {
  warnings_.push_back(
      Warning{std::string(where_) + " line " + std::to_string(line), std::move(message)});
}

}  // namespace fxscope::inductor
