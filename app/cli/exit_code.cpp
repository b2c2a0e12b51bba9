#include "commands.h"

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

}  // namespace fxscope::cli
