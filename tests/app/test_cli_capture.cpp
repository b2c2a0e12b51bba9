// `fxscope-cli capture` with a stand-in for a PyTorch script (tests/data/capture/
// fake_torch_program.sh), which prints, copies a real sample log into $TORCH_TRACE and exits as
// asked: the summary, the variables the program saw, exit statuses, and signals passed on.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_process.h"
#include "samples.h"

using namespace fxscope;
namespace fs = std::filesystem;

namespace {

using test::cli;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("fxscope_cli_capture_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

std::string sample_log() {
  for (const auto& e : fs::directory_iterator(test::sample("residual_mlp"))) {
    if (e.path().extension() == ".log") return e.path().string();
  }
  return {};
}

// The fake program's command line: copy LOG ("-": none), exit with STATUS.
std::string fake(const std::string& log, int status = 0) {
  return test::data("capture/fake_torch_program.sh") + " " + log + " " + std::to_string(status);
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

constexpr const char* kSummaryHead = "1 compile unit in 1 frame, 0 graph breaks";

}  // namespace

TEST_CASE("capture runs the program into a fresh folder and summarizes its log", "[cli]") {
  const fs::path dir = scratch("ok");
  const auto r = test::run_process(
      cli("capture --dir " + dir.string() + " -- " + fake(sample_log()) + " 2>&1"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("capturing into " + dir.string() + " (TORCH_TRACE)"));
  // The program saw the folder and the caches off, and its output came before the summary.
  CHECK_THAT(r.output, Catch::Contains("fake: TORCH_TRACE=" + dir.string() +
                                       " FX_GRAPH_CACHE=0 AUTOGRAD_CACHE=0"));
  CHECK_THAT(r.output, Catch::Contains("fake: a warning on stderr"));
  CHECK_THAT(r.output, Catch::Contains("exited with status 0; 1 log written in " + dir.string()));
  const auto step = r.output.find("step 1 loss 0.75");
  const auto summary = r.output.find(kSummaryHead);
  REQUIRE(step != std::string::npos);
  REQUIRE(summary != std::string::npos);
  CHECK(step < summary);
  CHECK_THAT(r.output, Catch::Contains("[0/0]  dynamo 6 ops, aten 12 ops"));
  CHECK(fs::exists(dir / "dedicated_log_torch_trace_fake.log"));
  fs::remove_all(dir);
}

TEST_CASE("capture's own folder goes under TMPDIR, and the user's cache choice stays", "[cli]") {
  const fs::path tmp = scratch("tmpdir");
  fs::create_directories(tmp);
  const auto r = test::run_process("TMPDIR=" + tmp.string() + " TORCHINDUCTOR_FX_GRAPH_CACHE=1 " +
                                   cli("capture -- " + fake(sample_log()) + " 2>&1"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("FX_GRAPH_CACHE=1 AUTOGRAD_CACHE=0"));
  int folders = 0;
  for (const auto& e : fs::directory_iterator(tmp)) {
    ++folders;
    CHECK_THAT(e.path().filename().string(), Catch::StartsWith("fxscope-capture-"));
    CHECK_THAT(r.output, Catch::Contains("capturing into " + e.path().string()));
    CHECK(fs::exists(e.path() / "dedicated_log_torch_trace_fake.log"));
  }
  CHECK(folders == 1);
  fs::remove_all(tmp);
}

TEST_CASE("a failing program's status is capture's, with the log it wrote summarized", "[cli]") {
  const fs::path dir = scratch("failed");
  const auto r = test::run_process(
      cli("capture --dir " + dir.string() + " -- " + fake(sample_log(), 3) + " 2>&1"));
  INFO(r.output);
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Catch::Contains("exited with status 3; 1 log so far in " + dir.string()));
  CHECK_THAT(r.output, Catch::Contains(kSummaryHead));
  fs::remove_all(dir);
}

TEST_CASE("a program that writes no log is an error saying what may have happened", "[cli]") {
  const fs::path dir = scratch("no_log");
  const auto ok =
      test::run_process(cli("capture --dir " + dir.string() + " -- " + fake("-") + " 2>&1"));
  INFO(ok.output);
  CHECK(ok.status == 1);
  CHECK_THAT(ok.output,
             Catch::Contains("exited with status 0 but wrote no TORCH_TRACE log in " +
                             dir.string() + ": torch.compile was perhaps never reached"));
  CHECK_THAT(ok.output, !Catch::Contains("compile unit"));
  fs::remove_all(dir);

  const auto failed =
      test::run_process(cli("capture --dir " + dir.string() + " -- " + fake("-", 5) + " 2>&1"));
  INFO(failed.output);
  CHECK(failed.status == 5);
  CHECK_THAT(failed.output, Catch::Contains("exited with status 5 and wrote no TORCH_TRACE log"));
  fs::remove_all(dir);
}

TEST_CASE("a log without a compile unit is summarized with a hint", "[cli]") {
  // Only the string-table record of a real log: what a program that imported torch with
  // TORCH_TRACE set but never compiled would leave, had it logged anything.
  const fs::path dir = scratch("no_units");
  const fs::path log = dir.string() + ".log";
  std::ifstream in(sample_log());
  for (std::string line; std::getline(in, line);) {
    if (line.find("] {\"str\": [") != std::string::npos) {
      std::ofstream(log) << line << "\n";
      break;
    }
  }
  REQUIRE(fs::file_size(log) > 0);
  const auto r = test::run_process(
      cli("capture --dir " + dir.string() + " -- " + fake(log.string()) + " 2>&1"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("0 compile units"));
  CHECK_THAT(r.output, Catch::Contains("the log holds no compile unit: torch.compile was perhaps "
                                       "never reached"));
  fs::remove_all(dir);
  fs::remove(log);
}

TEST_CASE("capture refuses a missing program, a used folder and an empty command", "[cli]") {
  const fs::path tmp = scratch("missing_tmp");
  fs::create_directories(tmp);
  const auto missing = test::run_process("TMPDIR=" + tmp.string() + " " +
                                         cli("capture -- fxscope-no-such-program train.py 2>&1"));
  CHECK(missing.status == 127);
  CHECK_THAT(missing.output, Catch::Contains("fxscope-no-such-program: command not found on PATH"));
  CHECK(fs::is_empty(tmp));  // the folder made for the run is gone again
  fs::remove_all(tmp);

  const fs::path dir = scratch("used");
  fs::create_directories(dir);
  std::ofstream(dir / "old.log") << "x";
  const auto used = test::run_process(
      cli("capture --dir " + dir.string() + " -- " + fake(sample_log()) + " 2>&1"));
  CHECK(used.status == 1);
  CHECK_THAT(used.output, Catch::Contains("already holds files"));
  CHECK_THAT(used.output, !Catch::Contains("step 0"));  // the program never ran
  fs::remove_all(dir);

  CHECK(test::run_process(cli("capture 2>&1")).status == 2);
}

TEST_CASE("capture passes the program's own options through and explains its defaults", "[cli]") {
  const fs::path dir = scratch("options");
  const auto r = test::run_process(
      cli("capture --dir " + dir.string() + " -- /bin/sh -c 'echo \"args: $0 $1\"' --lr 3 2>&1"));
  CHECK_THAT(r.output, Catch::Contains("args: --lr 3"));
  fs::remove_all(dir);
  const auto help = test::run_process(cli("capture --help"));
  CHECK(help.status == 0);
  CHECK_THAT(help.output, Catch::Contains("TORCHINDUCTOR_FX_GRAPH_CACHE=0"));
  CHECK_THAT(help.output, Catch::Contains("--open"));
}

TEST_CASE("a SIGTERM to capture reaches the program, and the summary follows", "[cli]") {
  const fs::path dir = scratch("term");
  const std::string script =
      cli("capture --dir " + dir.string() + " -- " + fake(sample_log(), 0) + " 60") + " > " +
      dir.string() + ".out 2>&1 & pid=$!; i=0; while [ ! -e " + dir.string() +
      "/ready ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; kill -TERM $pid; wait $pid; "
      "echo \"status=$?\"";
  const auto r = test::run_process(script);
  const std::string out = read_text(dir.string() + ".out");
  INFO(out);
  CHECK_THAT(r.output, Catch::Contains("status=42"));
  CHECK_THAT(out, Catch::Contains("fake: caught SIGTERM"));
  CHECK_THAT(out, Catch::Contains("exited with status 42; 1 log so far"));
  CHECK_THAT(out, Catch::Contains(kSummaryHead));
  fs::remove_all(dir);
  fs::remove(dir.string() + ".out");
}

TEST_CASE("capture --open starts the desktop app on the folder instead of summarizing", "[cli]") {
  const fs::path dir = scratch("open");
  const fs::path opened = dir.string() + ".opened";
  const fs::path gui = dir.string() + ".gui.sh";
  std::ofstream(gui) << "#!/bin/sh\necho \"$@\" > " << opened.string() << ".part && mv "
                     << opened.string() << ".part " << opened.string() << "\n";
  fs::permissions(gui, fs::perms::owner_all);
  const auto r = test::run_process(
      "FXSCOPE_GUI=" + gui.string() + " " +
      cli("capture --open --dir " + dir.string() + " -- " + fake(sample_log()) + " 2>&1"));
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("opening " + dir.string() + " in " + gui.string()));
  CHECK_THAT(r.output, !Catch::Contains(kSummaryHead));
  // The app runs detached: wait for the file it writes.
  for (int i = 0; i < 200 && !fs::exists(opened); ++i) usleep(50000);
  CHECK(read_text(opened) == dir.string() + "\n");

  // An app that cannot start leaves the summary in its place, and a failure status.
  fs::remove_all(dir);
  const auto missing = test::run_process(
      "FXSCOPE_GUI=/nonexistent/fxscope " +
      cli("capture --open --dir " + dir.string() + " -- " + fake(sample_log()) + " 2>&1"));
  INFO(missing.output);
  CHECK(missing.status == 1);
  CHECK_THAT(missing.output, Catch::Contains("cannot open the desktop app"));
  CHECK_THAT(missing.output, Catch::Contains(kSummaryHead));
  for (const fs::path& p : {dir, opened, gui}) fs::remove_all(p);
}
