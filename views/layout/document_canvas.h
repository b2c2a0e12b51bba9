#pragma once
// A graph of an fxscope JSON file (exported by fxscope-cli or the app) as the canvas draws it:
// its nodes, the kernel groups its annotations name as clusters, and the layout. Built off the
// UI thread like any other canvas graph.

#include <string>

#include "fxscope/core/result.h"
#include "fxscope/graph/document.h"
#include "layout/canvas_graph.h"

namespace fxscope::views {

// An fxscope JSON file starts with '{' (a TORCH_TRACE log never does); reads one byte or so.
bool is_fxscope_json(const std::string& path);

// Reads and checks PATH; the Error names the file and what was expected.
Result<graph::Document> read_document(const std::string& path);

// Graph INDEX of DOC laid out with its groups; a bad index gives an empty graph and a problem.
CanvasGraphPtr document_canvas(const graph::Document& doc, std::size_t index);

}  // namespace fxscope::views
