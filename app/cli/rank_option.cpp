#include "rank_option.h"

#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "fxscope/trace/log_locator.h"

namespace fxscope::cli {

void add_rank_option(CLI::App* cmd, std::string& path, std::function<void()> callback) {
  auto rank = std::make_shared<int>(0);
  cmd->add_option("--rank", *rank, "which rank's log to read in a directory of several")
      ->capture_default_str();
  cmd->callback([rank, &path, callback = std::move(callback)] {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      const auto located = trace::locate_log(path, *rank);
      if (!located) {
        std::fprintf(stderr, "fxscope-cli: %s\n", located.error().message.c_str());
        set_exit_code(1);
        return;
      }
      path = located->path;
    }
    callback();
  });
}

}  // namespace fxscope::cli
