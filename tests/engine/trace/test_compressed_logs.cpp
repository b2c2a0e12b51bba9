#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "compress.h"
#include "fxscope/report/summary.h"
#include "fxscope/report/summary_json.h"
#include "fxscope/trace/log_locator.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::trace;
namespace fs = std::filesystem;

namespace {

using test::ScratchDir;

std::string sample_log(const std::string& sample) {
  auto located = locate_log(test::sample(sample), 0);
  REQUIRE(located.ok());
  return located->path;
}

// Everything the summary says of a log but the path it was read from.
nlohmann::json summary_without_path(const TraceLog& log) {
  auto j = report::to_json(report::summarize(log));
  j.erase("path");
  return j;
}

TraceLog read_ok(const std::string& path, const ReadOptions& options = {}) {
  auto log = read_trace(path, options);
  if (!log) FAIL(log.error().message);
  return std::move(log).value();
}

std::string read_error(const std::string& path, const ReadOptions& options = {}) {
  const auto log = read_trace(path, options);
  REQUIRE_FALSE(log.ok());
  CHECK(log.error().message.find('\n') == std::string::npos);
  CHECK_THAT(log.error().message, Catch::StartsWith(path + ": "));
  return log.error().message;
}

}  // namespace

TEST_CASE("a gzip or zstd copy of a real log reads as the plain log", "[trace][compressed]") {
  // graph_breaks has breaks and recompiles; gpt2_48layer is large enough (9.7 MB) to be read in
  // several parts while it is decompressed.
  for (const char* sample : {"graph_breaks", "gpt2_48layer"}) {
    INFO(sample);
    const std::string plain_path = sample_log(sample);
    const std::string text = test::slurp(plain_path);
    const TraceLog plain = read_ok(plain_path);
    const auto expected = summary_without_path(plain);
    REQUIRE(expected["units"].size() == plain.units().size());

    const ScratchDir dir(std::string("same_") + sample);
    const std::string gz = dir.write("log.log.gz", test::gzip_bytes(text));
    const std::string zst = dir.write("log.log.zst", test::zstd_bytes(text));
    for (const auto& [path, compression] :
         {std::pair{gz, Compression::gzip}, std::pair{zst, Compression::zstd}}) {
      INFO(path);
      const TraceLog log = read_ok(path);
      CHECK(log.compression() == compression);
      CHECK(log.stored_bytes() < text.size() / 5);
      CHECK(log.text() == text);
      CHECK(log.stats().bytes == plain.stats().bytes);
      CHECK(log.units().size() == plain.units().size());
      CHECK(log.graph_break_total() == plain.graph_break_total());
      CHECK(log.recompiles().size() == plain.recompiles().size());
      CHECK(summary_without_path(log) == expected);
    }
  }
}

TEST_CASE("concatenated gzip members and zstd frames are one log", "[trace][compressed]") {
  const std::string text = test::slurp(sample_log("graph_breaks"));
  const TraceLog plain = read_ok(sample_log("graph_breaks"));
  // Split inside a line: the halves are one text only once joined.
  const std::size_t half = text.size() / 2 + 17;
  const std::string first = text.substr(0, half);
  const std::string second = text.substr(half);
  const ScratchDir dir("concatenated");
  const std::string gz =
      dir.write("members.log.gz", test::gzip_bytes(first) + test::gzip_bytes(second, 1));
  // Frames without a content size, as a piped `zstd` writes them: the buffer grows as it goes.
  const std::string zst = dir.write(
      "frames.log.zst", test::zstd_bytes(first, 3, false) + test::zstd_bytes(second, 1, false));
  for (const auto& path : {gz, zst}) {
    INFO(path);
    const TraceLog log = read_ok(path);
    CHECK(log.text() == text);
    CHECK(log.warnings().empty());
    CHECK(log.units().size() == plain.units().size());
    CHECK(log.stats().records == plain.stats().records);
  }
}

TEST_CASE("the bytes decide the format, not the name", "[trace][compressed]") {
  const std::string text = test::slurp(test::data("trace/small.log"));
  const ScratchDir dir("magic");
  const std::string zst_named_log = dir.write("zstd_inside.log", test::zstd_bytes(text));
  const TraceLog log = read_ok(zst_named_log);
  CHECK(log.compression() == Compression::zstd);
  CHECK(log.text() == text);

  const std::string plain_named_gz = dir.write("plain_inside.log.gz", text);
  CHECK_THAT(read_error(plain_named_gz),
             Catch::Contains("named as gzip but does not start with its magic bytes 1f 8b"));
  const std::string plain_named_zst = dir.write("plain_inside.log.zst", text);
  CHECK_THAT(read_error(plain_named_zst), Catch::Contains("magic bytes 28 b5 2f fd"));
}

TEST_CASE("the kept fixtures open: a .gz log, and a directory holding only a .zst log",
          "[trace][compressed]") {
  const TraceLog plain = read_ok(test::data("trace/small.log"));
  const TraceLog gz = read_ok(test::data("trace/small.log.gz"));
  CHECK(gz.compression() == Compression::gzip);
  CHECK(gz.text() == plain.text());

  const TraceLog dir = read_ok(test::data("trace/zst_only"));
  CHECK_THAT(dir.path(), Catch::EndsWith("zst_only/dedicated_log_torch_trace_small.log.zst"));
  CHECK(dir.compression() == Compression::zstd);
  CHECK(dir.other_logs().empty());
  CHECK(dir.text() == plain.text());
  CHECK(summary_without_path(dir) == summary_without_path(plain));
}

// The warning a cut-short log carries, or "" where it has none.
std::string cut_warning(const TraceLog& log) {
  for (const auto& w : log.warnings()) {
    if (w.message.find("the file was cut short") != std::string::npos) return w.message;
  }
  return "";
}

TEST_CASE("a cut-short compressed log opens what precedes the cut, with a warning saying so",
          "[trace][compressed]") {
  // As a plain log cut short does: a training job killed while its log was being compressed, a
  // copy in progress.
  const std::string text = test::slurp(sample_log("graph_breaks"));
  const std::string gz = test::gzip_bytes(text);
  const std::string zst = test::zstd_bytes(text);
  const ScratchDir dir("truncated");
  SECTION("cut in the middle") {
    const TraceLog gz_cut = read_ok(dir.write("cut.log.gz", gz.substr(0, gz.size() / 2)));
    CHECK(gz_cut.truncated());
    CHECK_THAT(cut_warning(gz_cut), Catch::StartsWith("the file ends inside gzip member 1"));
    CHECK_FALSE(gz_cut.text().empty());
    CHECK(text.starts_with(gz_cut.text()));
    CHECK(gz_cut.text().size() < text.size());
    const TraceLog zst_cut = read_ok(dir.write("cut.log.zst", zst.substr(0, zst.size() / 2)));
    CHECK(zst_cut.truncated());
    CHECK_THAT(cut_warning(zst_cut), Catch::StartsWith("the file ends inside zstd frame 1"));
    CHECK(text.starts_with(zst_cut.text()));
    CHECK(zst_cut.text().size() < text.size());
  }
  SECTION("only the end marker missing") {
    // The text is whole; the trailer (gzip's CRC and size, zstd's checksum) is not.
    const TraceLog gz_cut = read_ok(dir.write("no_trailer.log.gz", gz.substr(0, gz.size() - 8)));
    CHECK_THAT(cut_warning(gz_cut), Catch::Contains("before its end marker"));
    CHECK(gz_cut.text() == text);
    const TraceLog zst_cut =
        read_ok(dir.write("no_checksum.log.zst", zst.substr(0, zst.size() - 4)));
    CHECK_THAT(cut_warning(zst_cut), Catch::Contains("the file ends inside zstd frame 1"));
    CHECK(zst_cut.text() == text);
  }
  SECTION("cut before any text") {
    // Nothing decoded: no log to show, said as such.
    CHECK_THAT(read_error(dir.write("header.log.gz", gz.substr(0, 12))), Catch::Contains("empty"));
  }
}

TEST_CASE("corrupt compressed data is an error naming where", "[trace][compressed]") {
  const std::string text = test::slurp(sample_log("graph_breaks"));
  const ScratchDir dir("corrupt");
  SECTION("a damaged byte") {
    // Inside the compressed data: the decoder or the stream's checksum notices.
    std::string gz = test::gzip_bytes(text);
    gz[gz.size() / 2] = static_cast<char>(gz[gz.size() / 2] ^ 0x55);
    const auto gz_message = read_error(dir.write("flipped.log.gz", gz));
    CHECK_THAT(gz_message, Catch::Contains("corrupt data at byte"));
    CHECK_THAT(gz_message, Catch::Contains("(zlib: "));
    std::string zst = test::zstd_bytes(text);
    zst[zst.size() / 2] = static_cast<char>(zst[zst.size() / 2] ^ 0x55);
    const auto zst_message = read_error(dir.write("flipped.log.zst", zst));
    CHECK_THAT(zst_message, Catch::Contains("corrupt data in zstd frame 1"));
    CHECK_THAT(zst_message, Catch::Contains("(libzstd: "));
  }
  SECTION("bytes after the last member or frame") {
    const auto gz_message =
        read_error(dir.write("trailing.log.gz", test::gzip_bytes(text) + "garbage"));
    CHECK_THAT(gz_message, Catch::Contains("7 bytes after gzip member 1 are not gzip data"));
    const auto zst_message =
        read_error(dir.write("trailing.log.zst", test::zstd_bytes(text) + "garbage"));
    CHECK_THAT(zst_message, Catch::Contains("7 bytes after zstd frame 1 are not zstd data"));
  }
}

TEST_CASE("what decompresses must still be a log, and within the limit", "[trace][compressed]") {
  const ScratchDir dir("not_a_log");
  const std::string noise = dir.write("noise.log.zst", test::zstd_bytes(std::string(5000, '#')));
  CHECK_THAT(
      read_error(noise),
      Catch::Contains("not a TORCH_TRACE log after zstd decompression: none of its 1 lines"));
  const std::string empty = dir.write("empty.log.gz", test::gzip_bytes(""));
  CHECK_THAT(read_error(empty), Catch::Contains("empty file after gzip decompression"));

  const std::string text = test::slurp(test::data("trace/small.log"));
  const ReadOptions tight{.max_decompressed_bytes = 4096};
  const std::string gz = dir.write("small.log.gz", test::gzip_bytes(text));
  CHECK_THAT(read_error(gz, tight),
             Catch::Contains("it decompresses to more than 4096 bytes of text, the limit"));
  const std::string zst = dir.write("small.log.zst", test::zstd_bytes(text));
  CHECK_THAT(read_error(zst, tight),
             Catch::Contains("its first zstd frame declares more than 4096 bytes"));
  const std::string zst_unsized = dir.write("unsized.log.zst", test::zstd_bytes(text, 3, false));
  CHECK_THAT(read_error(zst_unsized, tight), Catch::Contains("decompresses to more than 4096"));
  // Exactly at the limit is within it.
  CHECK(read_trace(gz, {.max_decompressed_bytes = text.size()}).ok());
}

TEST_CASE("a directory finds compressed logs and reads one copy of each", "[trace][compressed]") {
  const std::string text = test::slurp(test::data("trace/small.log"));
  SECTION("plain, zstd and gzip copies: the plain file is read, the copies listed") {
    const ScratchDir dir("copies");
    dir.write("dedicated_log_torch_trace_x.log.gz", test::gzip_bytes(text));
    const std::string plain = dir.write("dedicated_log_torch_trace_x.log", text);
    dir.write("dedicated_log_torch_trace_x.log.zst", test::zstd_bytes(text));
    const TraceLog log = read_ok(dir.path());
    CHECK(log.path() == plain);
    CHECK(log.compression() == Compression::none);
    REQUIRE(log.other_logs().size() == 2);
    CHECK_THAT(log.other_logs()[0], Catch::EndsWith("dedicated_log_torch_trace_x.log.zst"));
    CHECK_THAT(log.other_logs()[1], Catch::EndsWith("dedicated_log_torch_trace_x.log.gz"));
  }
  SECTION("gzip and zstd copies: zstd is read") {
    const ScratchDir dir("two_copies");
    dir.write("dedicated_log_torch_trace_x.log.gz", test::gzip_bytes(text));
    dir.write("dedicated_log_torch_trace_x.log.zst", test::zstd_bytes(text));
    const TraceLog log = read_ok(dir.path());
    CHECK(log.compression() == Compression::zstd);
    CHECK(log.other_logs().size() == 1);
  }
  SECTION("ranks in compressed names") {
    const ScratchDir dir("ranks");
    const std::string ranks = test::data("trace/ranks/");
    dir.write("dedicated_log_torch_trace_rank_0_aaaa.log.gz",
              test::gzip_bytes(test::slurp(ranks + "dedicated_log_torch_trace_rank_0_aaaa.log")));
    const std::string rank1 = dir.write(
        "dedicated_log_torch_trace_rank_1_bbbb.log.zst",
        test::zstd_bytes(test::slurp(ranks + "dedicated_log_torch_trace_rank_1_bbbb.log")));
    const TraceLog log = read_ok(dir.path(), {.rank = 1});
    CHECK(log.path() == rank1);
    CHECK(log.rank() == 1);
    CHECK(log.units().size() == 1);
    CHECK(log.other_logs().size() == 1);
  }
  SECTION("other names are not logs") {
    const ScratchDir dir("other_names");
    dir.write("dedicated_log_torch_trace_x.log.xz", text);
    dir.write("notes.log.gz", test::gzip_bytes(text));
    CHECK_THAT(read_error(dir.path()), Catch::Contains("directory holds no"));
  }
}

TEST_CASE("compressed names map to the log's own name", "[trace][compressed]") {
  CHECK(uncompressed_log_name("dedicated_log_torch_trace_a.log") ==
        "dedicated_log_torch_trace_a.log");
  CHECK(uncompressed_log_name("dedicated_log_torch_trace_a.log.gz") ==
        "dedicated_log_torch_trace_a.log");
  CHECK(uncompressed_log_name("dedicated_log_torch_trace_a.log.zst") ==
        "dedicated_log_torch_trace_a.log");
  CHECK_FALSE(uncompressed_log_name("dedicated_log_torch_trace_a.log.xz").has_value());
  CHECK(compression_of_name("a.log.zst") == Compression::zstd);
  CHECK(compression_of_bytes("\x1f\x8b\x08") == Compression::gzip);
  CHECK(compression_of_bytes("V1129 12:42") == Compression::none);
}
