#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "compress.h"
#include "run_process.h"
#include "samples.h"

using namespace fxscope;
namespace fs = std::filesystem;

namespace {

using test::cli;

// A fresh scratch directory per test run.
fs::path summary_scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("fxscope_cli_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string first_log(const std::string& sample) {
  for (const auto& e : fs::directory_iterator(test::sample(sample))) {
    if (e.path().extension() == ".log") return e.path().string();
  }
  return {};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

nlohmann::json summary_json(const std::string& path) {
  const auto r = test::run_process(cli("summary --json " + path));
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(r.output);
  j.erase("path");
  return j;
}

// The text summary but its first line, which names the file read.
std::string summary_text_body(const std::string& path) {
  const auto r = test::run_process(cli("summary " + path));
  REQUIRE(r.status == 0);
  return r.output.substr(r.output.find('\n'));
}

}  // namespace

TEST_CASE("the version flag lists the build's features", "[cli]") {
  const auto r = test::run_process(cli("--version"));
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("fxscope-cli"));
  CHECK_THAT(r.output, Catch::Contains("features:"));
  CHECK_THAT(r.output, Catch::Contains("gui"));
  CHECK_THAT(r.output, Catch::Contains("cuda"));
}

TEST_CASE("summary of a directory prints the unit tree, breaks and recompiles", "[cli]") {
  const auto r = test::run_process(cli("summary " + test::sample("graph_breaks")));
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("11 compile units in 5 frames"));
  CHECK_THAT(r.output, Catch::Contains("frame 4  pointwise_fn"));
  CHECK_THAT(r.output, Catch::Contains("[gb0036]"));
  CHECK_THAT(r.output, Catch::Contains("Warnings: 0"));
}

TEST_CASE("summary --json prints one object with units, breaks, recompiles and warnings", "[cli]") {
  const auto r = test::run_process(cli("summary --json " + first_log("resnet18")));
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  REQUIRE(j["units"].size() == 1);
  CHECK(j["units"][0]["inductor_kernels"] == 57);
  CHECK(j["units"][0]["frame"]["function"] == "forward");
  CHECK(j["graph_breaks"].empty());
  CHECK(j["recompiles"].empty());
  CHECK(j["warnings"].empty());
}

TEST_CASE("unusable input is one line naming the path, and a non-zero exit", "[cli]") {
  const fs::path dir = summary_scratch("bad");
  write_file(dir / "empty.log", "");
  std::mt19937 rng(7);
  std::string noise(4096, '\0');
  for (auto& c : noise) c = static_cast<char>(rng() & 0xff);
  write_file(dir / "noise.log", noise);
  fs::create_directories(dir / "no_logs");
  write_file(dir / "no_logs" / "notes.txt", "hello\n");

  for (const fs::path& path :
       {dir / "empty.log", dir / "noise.log", dir / "no_logs", dir / "does_not_exist"}) {
    INFO(path);
    const auto r = test::run_process(cli("summary " + path.string() + " 2>&1"));
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains(path.string()));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
}

TEST_CASE("a truncated log or a broken line still gives the summary, with a warning", "[cli]") {
  const fs::path dir = summary_scratch("damaged");
  const std::string log = read_file(first_log("graph_breaks"));
  write_file(dir / "truncated.log", log.substr(0, log.size() / 2));
  std::string broken = log;
  const std::size_t line3 = broken.find('\n', broken.find('\n') + 1) + 1;
  broken.insert(line3,
                "V1129 13:09:42.455000 512 torch/x.py:1] {\"dynamo_start\": {\"stack\": [\n");
  write_file(dir / "broken.log", broken);

  const auto truncated =
      test::run_process(cli("summary --json " + (dir / "truncated.log").string()));
  REQUIRE(truncated.status == 0);
  const auto t = nlohmann::json::parse(truncated.output);
  CHECK(t["units"].size() >= 3);
  CHECK(t["units"].size() < 11);
  CHECK_FALSE(t["warnings"].empty());

  const auto damaged = test::run_process(cli("summary --json " + (dir / "broken.log").string()));
  REQUIRE(damaged.status == 0);
  const auto b = nlohmann::json::parse(damaged.output);
  CHECK(b["units"].size() == 11);
  // The broken line, and the timing event whose payload it cut in two (left out, counted).
  REQUIRE(b["warnings"].size() == 2);
  CHECK_THAT(b["warnings"][0]["where"].get<std::string>(), Catch::Contains("broken.log:3"));
  CHECK_THAT(b["warnings"][1]["message"].get<std::string>(),
             Catch::Contains("chromium_event payload is no JSON event"));
}

TEST_CASE("summary of a .gz or .zst log, or of a directory holding one, is the plain log's",
          "[cli][compressed]") {
  const std::string plain = first_log("graph_breaks");
  const std::string text = read_file(plain);
  const fs::path dir = summary_scratch("compressed_same");
  const std::string gz = (dir / "graph_breaks.log.gz").string();
  write_file(gz, test::gzip_bytes(text));
  fs::create_directories(dir / "zst_dir");
  const std::string zst_dir = (dir / "zst_dir").string();
  write_file(zst_dir + "/dedicated_log_torch_trace_x.log.zst", test::zstd_bytes(text));

  const auto expected = summary_json(plain);
  CHECK(expected["units"].size() == 11);
  CHECK(summary_json(gz) == expected);
  CHECK(summary_json(zst_dir) == expected);
  const std::string body = summary_text_body(plain);
  CHECK(summary_text_body(gz) == body);
  CHECK(summary_text_body(zst_dir) == body);
  fs::remove_all(dir);
}

TEST_CASE(
    "a corrupt compressed log is one line naming it and exit 1 while a cut-short one reads "
    "what precedes the cut and says so",
    "[cli][compressed]") {
  const std::string text = read_file(first_log("graph_breaks"));
  const fs::path dir = summary_scratch("compressed_damaged");
  const std::string zst = test::zstd_bytes(text);
  const std::string cut = (dir / "cut.log.zst").string();
  write_file(cut, zst.substr(0, zst.size() / 3));
  std::string gz = test::gzip_bytes(text);
  gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x55);
  const std::string flipped = (dir / "flipped.log.gz").string();
  write_file(flipped, gz);

  const auto corrupt = test::run_process(cli("summary " + flipped + " 2>&1"));
  CHECK(corrupt.status == 1);
  CHECK_THAT(corrupt.output, Catch::Contains(flipped + ": "));
  CHECK_THAT(corrupt.output, Catch::Contains("corrupt"));
  CHECK(std::count(corrupt.output.begin(), corrupt.output.end(), '\n') == 1);

  const auto truncated = test::run_process(cli("summary " + cut + " 2>&1"));
  CHECK(truncated.status == 0);
  CHECK_THAT(truncated.output, Catch::Contains(cut + ":"));
  CHECK_THAT(truncated.output, Catch::Contains("the file ends inside zstd frame 1"));
  CHECK_THAT(truncated.output, Catch::Contains("compile units"));
  fs::remove_all(dir);
}
