#pragma once
// Each subcommand registers itself on the CLI11 app and records its exit status.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>

namespace fxscope::cli {

void add_summary_command(CLI::App& app);
void add_guards_command(CLI::App& app);
void add_fuse_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_capture_command(CLI::App& app);
void add_compile_time_command(CLI::App& app);
void add_diff_command(CLI::App& app);

// `summary PATH` as text or JSON on stdout, and the number of compile units it listed; nothing,
// with the reader's message on stderr, when PATH cannot be read. `capture` prints what it
// captured through it.
std::optional<std::size_t> print_summary(const std::string& path, int rank, bool json);

// The status of the subcommand that ran: 0 ok, 1 bad input (a message was printed).
int exit_code();
void set_exit_code(int code);
// Prints "fxscope-cli: MESSAGE" on stderr and sets the exit code to 1.
void fail(const std::string& message);

}  // namespace fxscope::cli
