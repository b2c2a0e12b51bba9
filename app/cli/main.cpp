// fxscope-cli: a thin front end over the engine; each subcommand lives in its own file.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "commands.h"

#if FXSCOPE_HAS_CUDA
#include "fxscope/gpu/torch_run.h"
#endif

namespace {

std::string version_text() {
  std::string s = std::string("fxscope-cli ") + FXSCOPE_VERSION + "\nfeatures:";
  s += FXSCOPE_HAS_GUI ? " gui" : " no-gui";
  s += FXSCOPE_HAS_CUDA ? " cuda" : " no-cuda";
#if FXSCOPE_HAS_CUDA
  // Where `run --backend pytorch` takes them from: an install or a build tree gone wrong shows
  // here.
  s += "\ncupti library: " + fxscope::gpu::default_cupti_lib();
  s += "\ntorch driver: " + fxscope::gpu::default_torch_driver();
#endif
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fxscope-cli: see why torch.compile does or does not speed your model up"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  fxscope::cli::add_summary_command(app);
  fxscope::cli::add_guards_command(app);
  fxscope::cli::add_fuse_command(app);
  fxscope::cli::add_run_command(app);
  fxscope::cli::add_compare_command(app);
  fxscope::cli::add_export_command(app);
  fxscope::cli::add_capture_command(app);
  fxscope::cli::add_compile_time_command(app);
  fxscope::cli::add_diff_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; every usage error exits 2, as command-line tools do.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return fxscope::cli::exit_code();
}
