#pragma once
// Graphviz behind plain values: lay out DOT text with dot and render it (svg from Graphviz's core
// plugin, png from its cairo or gd plugin), or read DOT back and count what it holds. Graphviz
// is not thread-safe: every call takes one process-wide lock.
//
// Graphviz is opened at run time (dlopen of libgvc.so.6 and libcgraph.so.6, on first use, once
// per process) rather than linked: fxscope-cli runs as the desktop app's child on GPU hosts that
// have no Graphviz, where only svg / png export need it. There every call here fails with an
// Error saying so, and can_render is false.

#include <cstddef>
#include <string>
#include <string_view>

#include "fxscope/core/result.h"

namespace fxscope::render {

// Lays out DOT with dot and renders it as FORMAT ("svg", "png"); the file's bytes. An Error
// names what Graphviz rejected: DOT that does not parse, or a format no installed plugin renders;
// or, where Graphviz is not installed, missing_graphviz_message(FORMAT, graphviz_missing()).
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

// Why Graphviz cannot be used in this process, e.g. "libgvc.so.6 not found"; empty when it
// loaded. The first call opens it.
const std::string& graphviz_missing();

// The one-line error svg / png export gives where Graphviz is missing for PROBLEM (what
// graphviz_missing says); the CLI prints it as is, so it says what to do about it.
std::string missing_graphviz_message(std::string_view format, std::string_view problem);

// Opens libraries named GVC_SONAME and CGRAPH_SONAME and resolves every function this adapter
// calls, apart from the process-wide load: what graphviz_missing would say for them. Lets a test
// on a host with Graphviz see what a host without it gets.
std::string probe_graphviz(const char* gvc_soname, const char* cgraph_soname);

}  // namespace fxscope::render
