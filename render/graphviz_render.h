#pragma once
// Graphviz behind plain values: lay out DOT text with dot and render it (svg from Graphviz's core
// plugin, png from its cairo or gd plugin), or read DOT back and count what it holds. Graphviz
// is not thread-safe: every call takes one process-wide lock.

#include <cstddef>
#include <string>
#include <string_view>

#include "fxscope/core/result.h"

namespace fxscope::render {

// Lays out DOT with dot and renders it as FORMAT ("svg", "png"); the file's bytes. An Error
// names what Graphviz rejected: DOT that does not parse, or a format no installed plugin renders.
Result<std::string> render_dot(std::string_view dot, std::string_view format);

// Whether the installed Graphviz plugins render FORMAT.
bool can_render(std::string_view format);

// What a DOT text holds, counted after Graphviz parsed it.
struct DotCounts {
  std::size_t nodes = 0;
  std::size_t edges = 0;
  std::size_t clusters = 0;  // subgraphs named cluster*, at any depth
  std::string label;         // the root graph's label
};

Result<DotCounts> parse_dot(std::string_view dot);

}  // namespace fxscope::render
