#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "fxscope/trace/capture.h"
#include "samples.h"

using namespace fxscope;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("fxscope_capture_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

std::string value_of(const std::vector<EnvVar>& vars, const std::string& name) {
  for (const auto& v : vars) {
    if (v.name == name) return v.value;
  }
  return "(not set)";
}

}  // namespace

TEST_CASE("a capture sets TORCH_TRACE and turns off the caches the user left alone", "[trace]") {
  const auto none_set =
      trace::capture_environment("/tmp/cap", [](const std::string&) { return false; });
  CHECK(none_set.size() == 3);
  CHECK(value_of(none_set, "TORCH_TRACE") == "/tmp/cap");
  CHECK(value_of(none_set, "TORCHINDUCTOR_FX_GRAPH_CACHE") == "0");
  CHECK(value_of(none_set, "TORCHINDUCTOR_AUTOGRAD_CACHE") == "0");

  const auto fx_set = trace::capture_environment(
      "/tmp/cap", [](const std::string& name) { return name == "TORCHINDUCTOR_FX_GRAPH_CACHE"; });
  CHECK(fx_set.size() == 2);
  CHECK(value_of(fx_set, "TORCHINDUCTOR_FX_GRAPH_CACHE") == "(not set)");
  CHECK(value_of(fx_set, "TORCHINDUCTOR_AUTOGRAD_CACHE") == "0");
  CHECK_THAT(trace::kCaptureCacheNote, Catch::Contains("TORCHINDUCTOR_FX_GRAPH_CACHE=0"));
}

TEST_CASE("each capture gets a new empty folder", "[trace]") {
  const fs::path parent = scratch("parent");
  fs::create_directories(parent);
  std::set<std::string> made;
  for (int i = 0; i < 3; ++i) {
    const auto dir = trace::make_capture_dir(parent.string());
    REQUIRE(dir.ok());
    CHECK(fs::path(*dir).parent_path() == parent);
    CHECK_THAT(fs::path(*dir).filename().string(), Catch::StartsWith("fxscope-capture-"));
    CHECK(fs::is_empty(*dir));
    made.insert(*dir);
  }
  CHECK(made.size() == 3);
  fs::remove_all(parent);

  const auto nowhere = trace::make_capture_dir("/nonexistent/fxscope");
  REQUIRE_FALSE(nowhere.ok());
  CHECK_THAT(nowhere.error().message, Catch::StartsWith("/nonexistent/fxscope: cannot make"));
}

TEST_CASE("a folder the user names is made, or must be empty", "[trace]") {
  const fs::path dir = scratch("named");
  const auto made = trace::prepare_capture_dir((dir / "a" / "b").string());
  REQUIRE(made.ok());
  CHECK(fs::is_directory(*made));
  CHECK(trace::prepare_capture_dir(*made).ok());  // empty: fine

  std::ofstream(dir / "a" / "b" / "old.log") << "x";
  const auto full = trace::prepare_capture_dir((dir / "a" / "b").string());
  REQUIRE_FALSE(full.ok());
  CHECK_THAT(full.error().message, Catch::Contains("already holds files"));

  const auto file = trace::prepare_capture_dir((dir / "a" / "b" / "old.log").string());
  REQUIRE_FALSE(file.ok());
  CHECK_THAT(file.error().message, Catch::Contains("is not a folder"));
  fs::remove_all(dir);
}

TEST_CASE("the outcome of a capture names its logs or says why there is none", "[trace]") {
  const fs::path dir = scratch("outcome");
  fs::create_directories(dir);
  const auto empty_ok = trace::capture_outcome(dir.string(), ChildExit{});
  CHECK_FALSE(empty_ok.has_log());
  CHECK_FALSE(empty_ok.success());
  CHECK(empty_ok.verdict("python3") ==
        "python3 exited with status 0 but wrote no TORCH_TRACE log in " + dir.string() +
            ": torch.compile was perhaps never reached (is the compiled function called?), or "
            "the program set TORCH_TRACE itself");
  const auto empty_failed = trace::capture_outcome(dir.string(), ChildExit{1, 0});
  CHECK_THAT(empty_failed.verdict("python3"),
             Catch::StartsWith("python3 exited with status 1 and wrote no TORCH_TRACE log"));

  for (const auto& e : fs::directory_iterator(test::sample("residual_mlp"))) {
    if (e.path().extension() == ".log") fs::copy_file(e.path(), dir / e.path().filename());
  }
  std::ofstream(dir / "notes.txt") << "not a log";
  const auto written = trace::capture_outcome(dir.string(), ChildExit{});
  REQUIRE(written.logs.size() == 1);
  CHECK(written.success());
  CHECK(written.verdict("train.py") ==
        "train.py exited with status 0; 1 log written in " + dir.string());
  const auto interrupted = trace::capture_outcome(dir.string(), ChildExit{0, 2});
  CHECK_FALSE(interrupted.success());
  CHECK_THAT(interrupted.verdict("train.py"), Catch::Contains("; 1 log so far in "));
  fs::remove_all(dir);
}
