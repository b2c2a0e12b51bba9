#pragma once
// Each subcommand registers itself on the CLI11 app and records its exit status.

#include <CLI/CLI.hpp>

namespace fxscope::cli {

void add_summary_command(CLI::App& app);
void add_guards_command(CLI::App& app);
void add_fuse_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_export_command(CLI::App& app);

// The status of the subcommand that ran: 0 ok, 1 bad input (a message was printed).
int exit_code();
void set_exit_code(int code);

}  // namespace fxscope::cli
