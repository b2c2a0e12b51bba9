#include "commands.h"

#include <cstdio>

namespace fxscope::cli {
namespace {
int g_exit_code = 0;  // one subcommand runs per process
}  // namespace

int exit_code() {
  return g_exit_code;
}
void set_exit_code(int code) {
  g_exit_code = code;
}
void fail(const std::string& message) {
  std::fprintf(stderr, "fxscope-cli: %s\n", message.c_str());
  set_exit_code(1);
}

}  // namespace fxscope::cli
