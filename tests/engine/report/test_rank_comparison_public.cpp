// `summary --all-ranks` on the public multi-rank logs of tlparse's tests (pytorch/tlparse), read
// from a git mirror of that repository when one is at hand (FXSCOPE_TLPARSE_MIRROR, else
// /work/.mirror/pytorch+tlparse/repo): the divergences tlparse reports there are found, and none
// on ranks it finds identical. Without the mirror these tests say so and check nothing.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fxscope/report/rank_comparison.h"
#include "run_process.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::report;
using test::ScratchDir;

namespace {

std::string mirror() {
  const char* env = std::getenv("FXSCOPE_TLPARSE_MIRROR");
  return env != nullptr && *env != '\0' ? env : "/work/.mirror/pytorch+tlparse/repo";
}

// Copies FOLDER's files out of the mirror into DIR; false when the mirror or folder is absent.
bool extract(const std::string& folder, const ScratchDir& dir) {
  if (!std::filesystem::exists(mirror())) return false;
  const std::string git = "git --git-dir='" + mirror() + "' ";
  const auto listed = test::run_process(git + "ls-tree --name-only HEAD '" + folder + "/'");
  if (listed.status != 0 || listed.output.empty()) return false;
  std::size_t start = 0;
  while (start < listed.output.size()) {
    const auto end = listed.output.find('\n', start);
    const std::string path = listed.output.substr(start, end - start);
    start = end == std::string::npos ? listed.output.size() : end + 1;
    const std::string name = std::filesystem::path(path).filename().string();
    const auto shown = test::run_process(git + "show 'HEAD:" + path + "' > '" + dir.path() + "/" +
                                         name + "' 2>/dev/null");
    if (shown.status != 0) return false;
  }
  return true;
}

std::vector<DivergenceKind> kinds(const RankComparison& c) {
  std::vector<DivergenceKind> out;
  for (const auto& d : c.divergence) {
    if (out.empty() || out.back() != d.kind) out.push_back(d.kind);
  }
  return out;
}

std::vector<std::vector<int>> groups_of(const RankComparison& c, DivergenceKind kind) {
  for (const auto& d : c.divergence) {
    if (d.kind == kind) return d.groups;
  }
  return {};
}

}  // namespace

TEST_CASE("tlparse's public multi-rank logs", "[report][ranks][public]") {
  SECTION("multi_rank_schedule: rank 1 schedules other collectives") {
    const ScratchDir dir("tlparse_schedule");
    if (!extract("tests/inputs/multi_rank_schedule", dir)) {
      WARN("no tlparse mirror at " << mirror() << ": not checked");
      return;
    }
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    REQUIRE(c->ranks.size() == 3);
    CHECK(kinds(*c) == std::vector{DivergenceKind::kCollectives});
    CHECK(groups_of(*c, DivergenceKind::kCollectives) ==
          std::vector<std::vector<int>>{{0, 2}, {1}});
  }
  SECTION("multi_rank_messy_input: two identical ranks among other files") {
    const ScratchDir dir("tlparse_messy");
    if (!extract("tests/inputs/multi_rank_messy_input", dir)) return;
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    CHECK(c->ranks.size() == 2);
    CHECK(c->divergence.empty());
  }
  SECTION("multi_rank_logs: compile ids and cache patterns diverge") {
    const ScratchDir dir("tlparse_logs");
    if (!extract("tests/inputs/multi_rank_logs", dir)) return;
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    CHECK(groups_of(*c, DivergenceKind::kCompileIds) ==
          std::vector<std::vector<int>>{{0, 2}, {1}, {3}});
    // tlparse: more than two cache groups.
    CHECK(groups_of(*c, DivergenceKind::kCache).size() == 3);
  }
  SECTION("multi_rank_runtime: tensor meta and runtime estimates diverge") {
    const ScratchDir dir("tlparse_runtime");
    if (!extract("tests/inputs/multi_rank_runtime", dir)) return;
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    CHECK(c->ranks.size() == 7);
    CHECK_FALSE(groups_of(*c, DivergenceKind::kTensorMeta).empty());
    CHECK_FALSE(groups_of(*c, DivergenceKind::kRuntime).empty());
    // The same script on every rank: its graphs agree once comments and devices are set aside.
    CHECK(groups_of(*c, DivergenceKind::kGraphs).empty());
  }
  SECTION("graph_exec_order_tests: the ranks run their graphs in another order") {
    const ScratchDir dir("tlparse_exec_order");
    if (!extract("tests/graph_exec_order_tests", dir)) return;
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    CHECK(groups_of(*c, DivergenceKind::kExecutionOrder) ==
          std::vector<std::vector<int>>{{0}, {1}});
    // tlparse: the cache hit/miss sequence is consistent across these ranks.
    CHECK(groups_of(*c, DivergenceKind::kCache).empty());
  }
  SECTION("collectives_parity: collectives the output code never waits on") {
    const ScratchDir dir("tlparse_parity");
    if (!extract("tests/inputs/collectives_parity", dir)) return;
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    // tlparse counts 1 missing wait in graph 0/0 and 3 in 0/1 of rank 0.
    REQUIRE(c->divergence.size() == 2);
    CHECK(c->divergence[0].compile_id == "0/0");
    CHECK(c->divergence[0].values == std::vector<std::string>{"1"});
    CHECK(c->divergence[1].compile_id == "0/1");
    CHECK(c->divergence[1].values == std::vector<std::string>{"3"});
  }
}
