#pragma once
// `--rank N` for the commands that read one log: in a directory of ranks they read rank N, and a
// rank that is not there is an error naming the ranks that are.

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

namespace fxscope::cli {

// Adds --rank to CMD; when the command runs, a PATH that is a directory is replaced by the log
// of that rank (rank 0 unless asked) before CALLBACK sees it. A PATH that is a file (or a saved
// JSON document) is left as given. Prints the reader's message and fails the command when the
// rank cannot be found.
void add_rank_option(CLI::App* cmd, std::string& path, std::function<void()> callback);

}  // namespace fxscope::cli
