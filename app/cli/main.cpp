// fxscope-cli: thin front end over the engine (argument parsing and output only).
#include <cstdio>
#include <string_view>

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "--version") {
    std::printf("fxscope-cli %s\n", FXSCOPE_VERSION);
    return 0;
  }
  std::fprintf(stderr, "usage: fxscope-cli summary PATH [--json]\n");
  return 2;
}
