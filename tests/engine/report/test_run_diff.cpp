// `diff A B` on real logs: a log against itself and its compressed copy says nothing changed;
// two ranks of one run name the rank's recompiles and its other graph; two modes of one model
// name the kernels fused differently; two models say that little pairs up.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "compress.h"
#include "fxscope/report/run_diff.h"
#include "fxscope/report/run_diff_json.h"
#include "fxscope/report/run_diff_text.h"
#include "sample_log_file.h"
#include "samples.h"
#include "scratch_dir.h"

using namespace fxscope;
using report::KernelChangeKind;
using report::RunDiff;

namespace {

trace::TraceLog read(const std::string& path, int rank = 0) {
  trace::ReadOptions options;
  options.rank = rank;
  auto log = trace::read_trace(path, options);
  REQUIRE(log.ok());
  return std::move(*log);
}

RunDiff diff_of(const std::string& a, const std::string& b, int rank_a = 0, int rank_b = 0) {
  const auto log_a = read(a, rank_a);
  const auto log_b = read(b, rank_b);
  return report::diff_runs(log_a, log_b);
}

void require_no_difference(const RunDiff& d) {
  CHECK(d.same_compiles());
  CHECK_FALSE(d.unrelated());
  CHECK(d.only_a.empty());
  CHECK(d.only_b.empty());
  CHECK(d.matched.size() == d.a_units);
  CHECK(d.phases.empty());
  CHECK(d.a_compile_s == d.b_compile_s);
  CHECK(report::verdict(d) == "no difference");
}

}  // namespace

TEST_CASE("a log diffed with itself has no difference", "[run_diff]") {
  const std::string log = test::sample_log_file("graph_breaks");
  const RunDiff d = diff_of(log, log);
  CHECK(d.a_units == 11);
  require_no_difference(d);
  CHECK(report::to_json(d)["same_compiles"] == true);
}

TEST_CASE("a log diffed with its zstd copy has no difference", "[run_diff]") {
  const std::string log = test::sample_log_file("graph_breaks");
  const test::ScratchDir dir("run_diff_zstd");
  const std::string copy =
      dir.write("dedicated_log_torch_trace_copy.log.zst", test::zstd_bytes(test::slurp(log)));
  const RunDiff d = diff_of(log, copy);
  CHECK(d.b_path == copy);
  CHECK(d.a_units == d.b_units);
  require_no_difference(d);
}

TEST_CASE("two ranks of one run: rank 3's recompiles and its other graph", "[run_diff]") {
  const std::string run = test::sample("ranks_ddp");
  const RunDiff d = diff_of(run, run, 0, 3);
  CHECK(d.a_units == 6);
  CHECK(d.b_units == 8);
  CHECK(d.only_a.empty());
  REQUIRE(d.only_b.size() == 2);
  CHECK(d.only_b[0].compile_id == "0/1");
  CHECK(d.only_b[1].compile_id == "4/1");
  CHECK(d.recompiles_fixed.empty());
  REQUIRE(d.recompiles_new.size() == 2);
  CHECK(d.recompiles_new[0].compile_id == "0/1");
  CHECK(d.recompiles_new[0].guard ==
        "tensor 'args[0]' size mismatch at index 0. expected 32, actual 48");
  CHECK(d.recompiles_new[1].compile_id == "4/1");
  CHECK(d.recompiles_new[1].frame == "capture_ranks.py:33 forward");
  CHECK(d.recompiles_new[1].guard == "tensor 'x' size mismatch at index 0. expected 32, actual 48");
  CHECK(d.breaks_fixed.empty());
  CHECK(d.breaks_new.empty());
  // Every unit rank 0 has pairs with rank 3's of the same id; only the collective function's
  // graph differs (its rank-dependent branch).
  REQUIRE(d.matched.size() == 6);
  std::vector<std::string> changed;
  for (const auto& u : d.matched) {
    CHECK(u.a.compile_id == u.b.compile_id);
    if (!u.same_graph()) changed.push_back(u.b.compile_id);
  }
  CHECK(changed == std::vector<std::string>{"5/0"});
  const std::string v = report::verdict(d);
  CHECK(v.find("2 new recompiles") != std::string::npos);
  CHECK(v.find("2 units only in B") != std::string::npos);
  CHECK(v.find("1 graph changed") != std::string::npos);
}

TEST_CASE("two modes of one model name the kernels fused differently", "[run_diff]") {
  const RunDiff d =
      diff_of(test::sample_log_file("residual_mlp"), test::sample_log_file("max_autotune_mlp"));
  REQUIRE(d.matched.size() == 1);
  const auto& unit = d.matched.front();
  CHECK(unit.same_graph());
  CHECK(unit.a.launches == 3);
  CHECK(unit.b.launches == 3);
  REQUIRE_FALSE(unit.kernels.empty());
  CHECK(std::any_of(unit.kernels.begin(), unit.kernels.end(), [](const report::KernelChange& k) {
    return k.kind == KernelChangeKind::refused;
  }));
  CHECK_FALSE(d.same_compiles());
  CHECK(d.b_compile_s > d.a_compile_s);
  CHECK(report::verdict(d).find("1 unit fused differently") != std::string::npos);
}

TEST_CASE("two unrelated logs say that little pairs up", "[run_diff]") {
  const RunDiff d =
      diff_of(test::sample_log_file("resnet18"), test::sample_log_file("gpt2_2layer"));
  CHECK(d.unrelated());
  CHECK(d.matched.empty());
  CHECK(d.only_a.size() == 1);
  CHECK(d.only_b.size() == 1);
  CHECK(d.only_a[0].frame.function == "forward");
  const std::string v = report::verdict(d);
  CHECK(v.rfind("the logs look unrelated: only 0 of 1 compile units pair up", 0) == 0);
  CHECK(report::to_json(d)["unrelated"] == true);
}

TEST_CASE("reduce-overhead against max-autotune of one corpus model: mm became templates",
          "[run_diff]") {
  const std::string corpus = test::sample("corpus/");
  const RunDiff d =
      diff_of(corpus + "hand_attention_ro_bf16", corpus + "hand_attention_max_autotune_fp16");
  REQUIRE(d.matched.size() == 1);
  const auto& unit = d.matched.front();
  CHECK(unit.a.frame.function == "forward");
  CHECK(unit.same_graph());
  CHECK(unit.a.launches == 16);
  CHECK(unit.b.launches == 16);
  // Each extern mm of reduce-overhead is a Triton GEMM template with its neighbours fused in.
  REQUIRE(unit.kernels.size() == 2);
  std::size_t mms = 0;
  for (const auto& k : unit.kernels) {
    CHECK(k.kind == KernelChangeKind::refused);
    for (const auto& name : k.a) {
      CHECK(name == "mm");
      ++mms;
    }
    for (const auto& name : k.b) CHECK(name.rfind("triton_tem_fused_", 0) == 0);
    CHECK(std::find(k.ops.begin(), k.ops.end(), "aten.mm") != k.ops.end());
  }
  CHECK(mms == 4);
  const auto phase = std::find_if(d.phases.begin(), d.phases.end(),
                                  [](const auto& p) { return p.name == "mm_template_autotuning"; });
  REQUIRE(phase != d.phases.end());
  CHECK(phase->a_s == 0);
  CHECK(phase->b_s > 1.0);
}

TEST_CASE("breaks and recompiles of one log only are fixed or new", "[run_diff]") {
  const RunDiff d =
      diff_of(test::sample_log_file("graph_breaks"), test::sample_log_file("guard_order"));
  CHECK(d.unrelated());
  REQUIRE(d.breaks_fixed.size() == 3);
  CHECK(d.breaks_fixed[0].reason ==
        "Unsupported Tensor.item() call with capture_scalar_outputs=False");
  CHECK(d.breaks_fixed[0].location.ends_with("capture.py:83"));
  REQUIRE(d.breaks_new.size() == 1);
  CHECK(d.breaks_new[0].reason == "Failed to trace builtin operator");
  CHECK(d.breaks_new[0].location.ends_with("capture.py:202"));
  CHECK(d.recompiles_fixed.size() == 6);
  CHECK(d.recompiles_new.size() == 17);
  // The guard without Dynamo's trailing source comment.
  CHECK(d.recompiles_fixed[0].guard == "___stack0 == 124.3185043334961");
  CHECK(report::verdict(d).find("1 new break at capture.py:202") != std::string::npos);
}

TEST_CASE("breaks fixed and new are grouped under the unit that hit them", "[run_diff]") {
  const RunDiff d =
      diff_of(test::sample_log_file("graph_breaks"), test::sample_log_file("guard_order"));
  const auto fixed = report::breaks_by_unit(d, d.breaks_fixed, true);
  std::vector<std::string> ids;
  for (const auto& u : fixed) ids.push_back(u.compile_id);
  // The break at line 85 was hit by the resumed frame and its recompile: under both.
  CHECK(ids == std::vector<std::string>{"0/0", "1/0", "1/1", "2/0"});
  REQUIRE(fixed[1].breaks.size() == 1);
  CHECK(fixed[1].frame.function == "torch_dynamo_resume_in_forward_at_83");
  CHECK(fixed[1].breaks[0].reason == "Failed to trace builtin operator");
  CHECK(fixed[0].frame.function == "forward");
  CHECK(fixed[0].breaks[0].location.ends_with("capture.py:83"));

  const std::string text = report::to_text(d);
  const auto unit_line = text.find("  [0/0] forward  capture.py:81\n      ");
  REQUIRE(unit_line != std::string::npos);
  const auto break_line = text.find("capture.py:83  Unsupported Tensor.item()", unit_line);
  CHECK(break_line != std::string::npos);
  CHECK(text.find('\n', unit_line + 3) < break_line);

  const auto json = report::to_json(d);
  REQUIRE(json["breaks_new_by_unit"].size() == 4);
  CHECK(json["breaks_new_by_unit"][0]["compile_id"] == "7/0");
  CHECK(json["breaks_new_by_unit"][0]["frame"]["function"] == "forward");
  CHECK(json["breaks_new_by_unit"][0]["breaks"][0]["reason"] == "Failed to trace builtin operator");
  CHECK(json["breaks_fixed_by_unit"][3]["breaks"][0]["reason"] == "Dynamic shape operator");
}

TEST_CASE("a log against itself has no breaks to group", "[run_diff]") {
  const std::string log = test::sample_log_file("graph_breaks");
  const RunDiff d = diff_of(log, log);
  CHECK(report::breaks_by_unit(d, d.breaks_fixed, true).empty());
  CHECK(report::to_json(d)["breaks_new_by_unit"].empty());
}
