// `summary --all-ranks` on the public multi-rank logs of tlparse's tests (pytorch/tlparse),
// bundled zstd-compressed in sample_graphs/public/tlparse/: fxscope finds the divergences
// tlparse's own tests assert on each set of logs, with the same rank groups, and none where
// tlparse finds the ranks identical (README.md there says which test expects what).
#include <catch2/catch.hpp>

#include "samples.h"

#include <algorithm>
#include <string>
#include <vector>

#include "fxscope/report/rank_comparison.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::report;
using test::ScratchDir;

namespace {

std::string public_logs(const std::string& folder) {
  return std::string(fxscope::test::samples_dir()) + "/public/tlparse/" + folder;
}

std::vector<DivergenceKind> kinds(const RankComparison& c) {
  std::vector<DivergenceKind> out;
  for (const auto& d : c.divergence) {
    if (out.empty() || out.back() != d.kind) out.push_back(d.kind);
  }
  return out;
}

std::vector<const Divergence*> all_of_kind(const RankComparison& c, DivergenceKind kind) {
  std::vector<const Divergence*> out;
  for (const auto& d : c.divergence) {
    if (d.kind == kind) out.push_back(&d);
  }
  return out;
}

std::vector<std::vector<int>> groups_of(const RankComparison& c, DivergenceKind kind) {
  const auto found = all_of_kind(c, kind);
  return found.empty() ? std::vector<std::vector<int>>{} : found.front()->groups;
}

bool has_group(const Divergence& d, const std::vector<int>& group) {
  for (const auto& g : d.groups) {
    if (g == group) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("tlparse's multi_rank_schedule: rank 1 schedules other collectives",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("multi_rank_schedule"));
  REQUIRE(c.ok());
  REQUIRE(c->ranks.size() == 3);
  // test_collective_schedule_with_divergence: "Ranks: 0, 2" and "Ranks: 1".
  CHECK(kinds(*c) == std::vector{DivergenceKind::kCollectives});
  CHECK(groups_of(*c, DivergenceKind::kCollectives) == std::vector<std::vector<int>>{{0, 2}, {1}});
  // test_collective_schedule_parsing: graph 0/0 holds 6 collectives on ranks 0 and 2, 4 on rank 1.
  const auto d = all_of_kind(*c, DivergenceKind::kCollectives);
  REQUIRE(d.size() == 1);
  CHECK(d[0]->compile_id == "0/0");
  REQUIRE(d[0]->values.size() == 2);
  CHECK(std::count(d[0]->values[0].begin(), d[0]->values[0].end(), ',') + 1 == 6);
  CHECK(std::count(d[0]->values[1].begin(), d[0]->values[1].end(), ',') + 1 == 4);
}

TEST_CASE("tlparse's multi_rank_schedule: ranks 0 and 2 alone agree", "[report][ranks][public]") {
  // test_collective_schedule_no_divergence copies these two logs into a folder of their own.
  const ScratchDir dir("tlparse_schedule_same");
  dir.copy(public_logs("multi_rank_schedule/dedicated_log_torch_trace_rank_0_6u3fubwl.log.zst"),
           "dedicated_log_torch_trace_rank_0.log.zst");
  dir.copy(public_logs("multi_rank_schedule/dedicated_log_torch_trace_rank_2.log.zst"),
           "dedicated_log_torch_trace_rank_2.log.zst");
  const auto c = compare_ranks(dir.path());
  REQUIRE(c.ok());
  CHECK(c->ranks.size() == 2);
  CHECK(c->divergence.empty());
}

TEST_CASE("tlparse's multi_rank_messy_input: two identical ranks among other files",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("multi_rank_messy_input"));
  REQUIRE(c.ok());
  // test_all_ranks_messy_input: another.log and some_other_file.txt are no ranks.
  CHECK(c->ranks.size() == 2);
  CHECK(c->divergence.empty());
}

TEST_CASE("tlparse's multi_rank_logs: compile ids and cache patterns diverge",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("multi_rank_logs"));
  REQUIRE(c.ok());
  REQUIRE(c->ranks.size() == 4);
  // test_diverging_compile_ids_warning.
  CHECK(groups_of(*c, DivergenceKind::kCompileIds) ==
        std::vector<std::vector<int>>{{0, 2}, {1}, {3}});
  // test_diverging_cache_events_multiple_groups: more than two cache groups.
  CHECK(groups_of(*c, DivergenceKind::kCache).size() > 2);
}

TEST_CASE("tlparse's multi_rank_runtime: tensor meta diverges, ranks 5 and 6 together",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("multi_rank_runtime"));
  REQUIRE(c.ok());
  CHECK(c->ranks.size() == 7);
  // test_tensor_meta_divergence_groups: divergent tensor meta, "Ranks: 5, 6".
  const auto meta = all_of_kind(*c, DivergenceKind::kTensorMeta);
  REQUIRE_FALSE(meta.empty());
  CHECK(std::any_of(meta.begin(), meta.end(), [](const Divergence* d) {
    return has_group(*d, {5, 6});
  }));
  // test_runtime_analysis_mismatched_graphs: rank 4 logged no runtime and tensor meta for one
  // graph the others did (compile 0/0), so it stands alone there.
  REQUIRE(meta.front()->compile_id == "0/0");
  CHECK(meta.front()->groups == std::vector<std::vector<int>>{{0, 1, 2, 3}, {4}, {5, 6}});
  // Ranks 5 and 6 ran two compiles, the others four.
  CHECK(groups_of(*c, DivergenceKind::kCompileIds) ==
        std::vector<std::vector<int>>{{0, 1, 2, 3, 4}, {5, 6}});
  // The same script on every rank: its graphs agree once comments and devices are set aside.
  CHECK(groups_of(*c, DivergenceKind::kGraphs).empty());
}

TEST_CASE("tlparse's graph_exec_order_tests: the ranks run their graphs in another order",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("graph_exec_order_tests"));
  REQUIRE(c.ok());
  // test_graph_execution_order_diagnostics: the order differs, the cache sequence agrees.
  CHECK(groups_of(*c, DivergenceKind::kExecutionOrder) == std::vector<std::vector<int>>{{0}, {1}});
  CHECK(groups_of(*c, DivergenceKind::kCache).empty());
  // Rank 1's schedule of compile 0/1 holds a reduce_scatter that rank 0's lacks: tlparse's
  // grouping of ranks by their collective sequences splits them too.
  const auto d = all_of_kind(*c, DivergenceKind::kCollectives);
  REQUIRE(d.size() == 1);
  CHECK(d[0]->compile_id == "0/1");
  CHECK(d[0]->groups == std::vector<std::vector<int>>{{0}, {1}});
  CHECK(kinds(*c) == std::vector{DivergenceKind::kCollectives, DivergenceKind::kExecutionOrder});
}

TEST_CASE("tlparse's collectives_parity: collectives the output code never waits on",
          "[report][ranks][public]") {
  const auto c = compare_ranks(public_logs("collectives_parity"));
  REQUIRE(c.ok());
  REQUIRE(c->ranks.size() == 1);
  // test_collectives_parity_detects_mismatch: 1 missing wait in graph 0/0 and 3 in 0/1.
  REQUIRE(c->divergence.size() == 2);
  CHECK(c->divergence[0].compile_id == "0/0");
  CHECK(c->divergence[0].values == std::vector<std::string>{"1"});
  CHECK(c->divergence[1].compile_id == "0/1");
  CHECK(c->divergence[1].values == std::vector<std::string>{"3"});
}
