#pragma once
// Gathers the comment lines before a kernel definition or a launch into SourceComments.

#include <cstddef>
#include <string_view>

#include "fxscope/core/diagnostics.h"
#include "fxscope/inductor/source_comments.h"

namespace fxscope::inductor {

// Fed comment lines in order; the parser takes the result when a definition or launch follows.
class SourceCommentCollector {
 public:
  // WHERE prefixes warnings ("[0/0] output code"); WARNINGS must outlive the collector.
  SourceCommentCollector(std::string_view where, Warnings& warnings)
      : where_(where), warnings_(warnings) {}

  // One comment line (starting with '#') at LINE.
  void add(std::string_view comment, std::size_t line);
  // Ends the current comment block: later lines that look like mapping or fragment lines are not.
  void end_block() { section_ = Section::none; }
  // The comments gathered so far, which are then forgotten.
  SourceComments take();
  bool empty() const { return empty_; }

 private:
  enum class Section { none, mapping, fragment };

  void add_source_nodes(std::string_view rest, std::size_t line);
  void add_mapping(std::string_view rest, std::size_t line);
  void add_fragment_line(std::string_view rest, std::size_t line);
  void warn(std::size_t line, std::string message);

  std::string_view where_;
  Warnings& warnings_;
  SourceComments comments_;
  Section section_ = Section::none;
  bool empty_ = true;
};

}  // namespace fxscope::inductor
