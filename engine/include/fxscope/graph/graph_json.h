#pragma once
// fxscope JSON: the versioned file format of a Document (described in docs/formats.md).
// to_json -> from_json -> to_json gives the same text.

#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/graph/document.h"

namespace fxscope::graph {

// The "format" value of every fxscope JSON document and the version this build writes and reads.
inline constexpr std::string_view kJsonFormat = "fxscope-graph";
inline constexpr int kJsonVersion = 1;

nlohmann::json to_json(const Document& doc);
// Compact text (INDENT < 0) or pretty-printed; invalid UTF-8 in names or code becomes U+FFFD.
std::string to_json_text(const Document& doc, int indent = -1);

// Reads a document back; the error names the JSON path and what was expected there.
Result<Document> document_from_json(const nlohmann::json& j);
Result<Document> parse_document(std::string_view text);

// One graph (with its subgraphs), as stored under "graph" in each document entry.
nlohmann::json graph_to_json(const Graph& graph);
Result<Graph> graph_from_json(const nlohmann::json& j);

}  // namespace fxscope::graph
