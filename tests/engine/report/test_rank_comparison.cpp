// `summary --all-ranks`: ranks that agree report nothing; each kind of divergence is found on
// real captured logs laid out as ranks, with records a distributed run adds where the samples
// (single-process captures) have none.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "compress.h"
#include "fxscope/report/rank_comparison.h"
#include "fxscope/report/rank_comparison_output.h"
#include "fxscope/trace/log_locator.h"
#include "fxscope/trace/md5.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using namespace fxscope::report;
using test::ScratchDir;

namespace {

std::string sample_log(const std::string& name) {
  auto located = trace::locate_log(test::sample(name), 0);
  REQUIRE(located.ok());
  return located->path;
}

// One TORCH_TRACE record of compile 0/0 with PAYLOAD, as torch writes it (glog prefix, envelope
// with the payload's md5, one TAB before each payload line).
std::string record(const std::string& head, const std::string& payload) {
  std::string out =
      "V1129 13:09:50.000000 467 torch/_inductor/debug.py:1] {" + head +
      ", \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0, \"has_payload\": \"" +
      trace::md5_hex(payload) + "\"}\n";
  std::size_t start = 0;
  while (start <= payload.size()) {
    const auto end = std::min(payload.find('\n', start), payload.size());
    out += "\t" + payload.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

std::string schedule(const std::string& ops) {
  return record(R"("artifact": {"name": "inductor_collective_schedule", "encoding": "json"})", ops);
}

const Divergence* find_kind(const RankComparison& c, DivergenceKind kind) {
  for (const auto& d : c.divergence) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("identical ranks agree", "[report][ranks]") {
  const ScratchDir dir("ranks_identical");
  for (int r = 0; r < 3; ++r) {
    dir.copy(sample_log("residual_mlp_train"),
             "dedicated_log_torch_trace_rank_" + std::to_string(r) + ".log");
  }
  const auto c = compare_ranks(dir.path());
  REQUIRE(c.ok());
  REQUIRE(c->ranks.size() == 3);
  CHECK(c->divergence.empty());
  CHECK(c->ranks[2].rank == 2);
  CHECK(c->ranks[0].units == c->ranks[2].units);
  CHECK(c->ranks[0].kernels > 0);
  CHECK(c->ranks[0].compile_s > 0);
  CHECK_THAT(to_text(*c), Catch::Contains("The ranks agree"));
  const auto json = to_json(*c);
  CHECK(json["ranks"].size() == 3);
  CHECK(json["divergence"].empty());
}

TEST_CASE("a rank that ran another program diverges in compile ids and graphs", "[report][ranks]") {
  const ScratchDir dir("ranks_other_program");
  dir.copy(sample_log("pointwise_chain"), "rank0/dedicated_log_torch_trace_a.log");
  dir.copy(sample_log("pointwise_chain"), "rank1/dedicated_log_torch_trace_b.log");
  dir.copy(sample_log("graph_breaks"), "rank2/dedicated_log_torch_trace_c.log");
  const auto c = compare_ranks(dir.path());
  REQUIRE(c.ok());
  const auto* ids = find_kind(*c, DivergenceKind::kCompileIds);
  REQUIRE(ids != nullptr);
  CHECK(ids->groups == std::vector<std::vector<int>>{{0, 1}, {2}});
  const auto* graphs = find_kind(*c, DivergenceKind::kGraphs);
  REQUIRE(graphs != nullptr);
  CHECK(graphs->compile_id == "0/0");
  CHECK_THAT(graphs->detail, Catch::Contains("Dynamo graph"));
  // Graphs come before compile ids: most harmful first.
  CHECK(graphs < ids);
}

TEST_CASE("collective schedules and unwaited collectives", "[report][ranks]") {
  const ScratchDir dir("ranks_collectives");
  const std::string log = test::slurp(test::data("trace/small.log"));
  const std::string agreed = R"(["torch.ops._c10d_functional.all_reduce_.default",)"
                             R"( "torch.ops._c10d_functional.wait_tensor.default"])";
  dir.write("dedicated_log_torch_trace_rank_0.log", log + schedule(agreed));
  dir.write("dedicated_log_torch_trace_rank_1.log", log + schedule(agreed));
  dir.write("dedicated_log_torch_trace_rank_2.log",
            log + schedule(R"(["torch.ops._c10d_functional.all_gather_into_tensor.default"])"));
  SECTION("another schedule on one rank") {
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    REQUIRE_FALSE(c->divergence.empty());
    const auto& first = c->divergence.front();
    CHECK(first.kind == DivergenceKind::kCollectives);
    CHECK(first.groups == std::vector<std::vector<int>>{{0, 1}, {2}});
    CHECK_THAT(first.detail, Catch::Contains("all_gather_into_tensor"));
    CHECK(c->warnings.empty());
  }
  SECTION("an output code that never waits") {
    const std::string code =
        "buf1 = torch.ops._c10d_functional.all_reduce_.default(buf0, 'sum', '0')\n"
        "# torch.ops._c10d_functional.wait_tensor.default(buf1) is left out here\n"
        "return (buf1, )";
    dir.write("dedicated_log_torch_trace_rank_2.log",
              log + schedule(agreed) +
                  record(R"("inductor_output_code": {"filename": "/tmp/x.py"})", code));
    const auto c = compare_ranks(dir.path());
    REQUIRE(c.ok());
    REQUIRE(c->divergence.size() == 1);
    CHECK(c->divergence[0].kind == DivergenceKind::kCollectives);
    CHECK_THAT(c->divergence[0].detail, Catch::Contains("never waits on"));
    CHECK(c->divergence[0].groups == std::vector<std::vector<int>>{{0, 1}, {2}});
  }
}

TEST_CASE("64 ranks are read in parallel with progress", "[report][ranks]") {
  const ScratchDir dir("ranks_64");
  for (int r = 0; r < 64; ++r) {
    dir.copy(sample_log("pointwise_chain"),
             "dedicated_log_torch_trace_rank_" + std::to_string(r) + "_x.log");
  }
  std::atomic<std::size_t> calls{0};
  std::size_t last_done = 0;
  const auto c = compare_ranks(dir.path(), [&](std::size_t done, std::size_t total) {
    ++calls;
    last_done = std::max(last_done, done);
    CHECK(total == 64);
  });
  REQUIRE(c.ok());
  CHECK(c->ranks.size() == 64);
  CHECK(c->ranks[63].rank == 63);
  CHECK(calls == 64);
  CHECK(last_done == 64);
  CHECK(c->divergence.empty());
}

TEST_CASE("a directory without ranks is an error naming it", "[report][ranks]") {
  const auto c = compare_ranks(test::sample("pointwise_chain"));
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.error().message, Catch::Contains("no per-rank logs"));
}

TEST_CASE("collectives by their short names", "[report][ranks]") {
  CHECK(short_op_names("torch.ops._c10d_functional.all_reduce_.default, "
                       "torch.ops._c10d_functional.wait_tensor.default") ==
        "all_reduce_, wait_tensor");
  // Other ops and overloads are left as they are.
  CHECK(short_op_names("torch.ops.aten.mm.default") == "torch.ops.aten.mm.default");
  CHECK(short_op_names("torch.ops._c10d_functional.all_gather_into_tensor.out") ==
        "all_gather_into_tensor.out");
}

TEST_CASE("a group of ranks is named on one line however many", "[report][ranks]") {
  CHECK(ranks_text({3}) == "rank 3");
  CHECK(ranks_text({0, 2}) == "ranks 0, 2");
  CHECK(ranks_text({4, 1, 0}) == "ranks 0, 1, 4");
  CHECK(ranks_text({0, 1, 2, 4, 5, 6}) == "ranks 0-2, 4-6");
  // One rank of each 4-GPU node.
  std::vector<int> every4;
  for (int r = 3; r < 64; r += 4) every4.push_back(r);
  CHECK(ranks_text(every4) == "16 ranks, every 4th from 3 to 63");
  CHECK(ranks_text({1, 3, 5, 7}) == "4 ranks, every 2nd from 1 to 7");
  // The other 48: runs of three, the first seven and the last.
  std::vector<int> rest;
  for (int r = 0; r < 64; ++r) {
    if (r % 4 != 3) rest.push_back(r);
  }
  CHECK(ranks_text(rest) == "48 ranks: 0-2, 4-6, 8-10, 12-14, 16-18, 20-22, 24-26, ..., 60-62");
  std::vector<int> all(512);
  for (int r = 0; r < 512; ++r) all[static_cast<std::size_t>(r)] = r;
  CHECK(ranks_text(all) == "512 ranks: 0-511");
}
