#include "read_log.h"

#include <cstdio>
#include <utility>

namespace fxscope::cli {

std::optional<trace::TraceLog> read_log(const std::string& path, int rank) {
  trace::ReadOptions options;
  options.rank = rank;
  auto log = trace::read_trace(path, options);
  if (!log) {
    std::fprintf(stderr, "fxscope-cli: %s\n", log.error().message.c_str());
    return std::nullopt;
  }
  return std::move(*log);
}

}  // namespace fxscope::cli
