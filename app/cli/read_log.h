#pragma once
// Reading the log a command was given: the reader's message on stderr when it cannot be read.

#include <optional>
#include <string>

#include "fxscope/trace/trace_log.h"

namespace fxscope::cli {

// The log at PATH (rank RANK of a directory of ranks), or nothing after printing why not.
std::optional<trace::TraceLog> read_log(const std::string& path, int rank);

}  // namespace fxscope::cli
