// Every naming of per-rank logs that PyTorch and launchers use, on copies of a real captured log.
#include <catch2/catch.hpp>

#include <string>

#include "compress.h"
#include "fxscope/trace/log_locator.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::trace;
using test::ScratchDir;

namespace {

std::string real_log() {
  auto located = locate_log(test::sample("pointwise_chain"), 0);
  REQUIRE(located.ok());
  return located->path;
}

}  // namespace

TEST_CASE("rank numbers come from every file naming", "[trace][ranks]") {
  CHECK(rank_of("dedicated_log_torch_trace_rank_3_ab12cd.log") == 3);
  CHECK(rank_of("dedicated_log_torch_trace_rank_12.log") == 12);
  CHECK(rank_of("dedicated_log_torch_trace_rank_0.log.gz") == 0);
  CHECK(rank_of("dedicated_log_torch_trace_rank_7.log.zst") == 7);
  CHECK_FALSE(rank_of("dedicated_log_torch_trace_ab12.log").has_value());
  CHECK_FALSE(rank_of("dedicated_log_torch_trace_rank_x.log").has_value());
  CHECK_FALSE(rank_of("dedicated_log_torch_trace_rank_.log").has_value());
}

TEST_CASE("rank numbers come from folder names", "[trace][ranks]") {
  CHECK(rank_of_folder("rank0") == 0);
  CHECK(rank_of_folder("rank_1") == 1);
  CHECK(rank_of_folder("rank-12") == 12);
  CHECK_FALSE(rank_of_folder("rank").has_value());
  CHECK_FALSE(rank_of_folder("ranks").has_value());
  CHECK_FALSE(rank_of_folder("rank_1_old").has_value());
  CHECK_FALSE(rank_of_folder("logs").has_value());
}

TEST_CASE("a directory of suffix-less rank logs reads the rank asked for", "[trace][ranks]") {
  const ScratchDir dir("ranks_plain");
  const std::string log = real_log();
  dir.copy(log, "dedicated_log_torch_trace_rank_0.log");
  const auto rank1 = dir.copy(log, "dedicated_log_torch_trace_rank_1.log");
  dir.write("launcher_stdout.txt", "not a log\n");

  const auto read = read_trace(dir.path(), {.rank = 1});
  REQUIRE(read.ok());
  CHECK(read->path() == rank1);
  CHECK(read->rank() == 1);
  CHECK(read->ranks() == std::vector<int>{0, 1});
  CHECK(read->units().size() == 1);
  // The other rank and the launcher's file are listed, not read.
  REQUIRE(read->other_logs().size() == 1);
  REQUIRE(read->unread_files().size() == 1);
  CHECK_THAT(read->unread_files()[0], Catch::EndsWith("launcher_stdout.txt"));

  SECTION("a rank that is not there names the ranks that are") {
    const auto missing = read_trace(dir.path(), {.rank = 5});
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.error().message,
               Catch::Contains("no log of rank 5; the ranks here are 0, 1"));
  }
  SECTION("every rank, one log each") {
    const auto logs = rank_logs_in(dir.path());
    REQUIRE(logs.ok());
    REQUIRE(logs->size() == 2);
    CHECK((*logs)[1].rank == 1);
    CHECK((*logs)[1].path == rank1);
  }
}

TEST_CASE("compressed rank logs without a suffix are ranks too", "[trace][ranks]") {
  const ScratchDir dir("ranks_compressed");
  const std::string bytes = test::slurp(real_log());
  dir.write("dedicated_log_torch_trace_rank_0.log.gz", test::gzip_bytes(bytes));
  const auto rank1 = dir.write("dedicated_log_torch_trace_rank_1.log.zst", test::zstd_bytes(bytes));
  const auto read = read_trace(dir.path(), {.rank = 1});
  REQUIRE(read.ok());
  CHECK(read->path() == rank1);
  CHECK(read->units().size() == 1);
}

TEST_CASE("a folder per rank: rank 0 unless asked, the others listed", "[trace][ranks]") {
  const ScratchDir dir("rank_folders");
  const std::string log = real_log();
  dir.copy(log, "rank0/dedicated_log_torch_trace_abcd1234.log");
  const auto rank1 = dir.copy(log, "rank_1/dedicated_log_torch_trace_rank_1_efgh5678.log");
  dir.copy(log, "rank-2/dedicated_log_torch_trace_ijkl.log");
  dir.write("notes/readme.txt", "not a rank\n");

  const auto rank0 = read_trace(dir.path());
  REQUIRE(rank0.ok());
  CHECK(rank0->rank() == 0);
  CHECK(rank0->ranks() == std::vector<int>{0, 1, 2});
  CHECK(rank0->other_logs().size() == 2);

  const auto read1 = read_trace(dir.path(), {.rank = 1});
  REQUIRE(read1.ok());
  CHECK(read1->path() == rank1);

  const auto missing = read_trace(dir.path(), {.rank = 3});
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message,
             Catch::Contains("no folder of rank 3; the ranks here are 0, 1, 2"));

  const auto logs = rank_logs_in(dir.path());
  REQUIRE(logs.ok());
  CHECK(logs->size() == 3);
}

TEST_CASE("without ranks in the names, a rank other than 0 is an error", "[trace][ranks]") {
  const auto read = read_trace(test::sample("pointwise_chain"), {.rank = 2});
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(read.error().message, Catch::Contains("carry no rank in their names"));
  const auto logs = rank_logs_in(test::sample("pointwise_chain"));
  REQUIRE_FALSE(logs.ok());
  CHECK_THAT(logs.error().message, Catch::Contains("no per-rank logs"));
}
