#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "fxscope/cost/device_spec.h"
#include "fxscope/report/group_comparison.h"
#include "fxscope/report/run_result.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// The real run of SAMPLE on the H200 (tests/data/runs) and the fuse report of its unit 0/0.
struct Fixture {
  report::FuseReport fuse;
  report::MeasuredRun pytorch;
};

Fixture fixture(const std::string& sample, fusion::Mode mode) {
  auto log = trace::read_trace(test::sample(sample));
  REQUIRE(log);
  const auto device = cost::find_device("H200");
  REQUIRE(device);
  auto fuse = report::build_fuse_report(*log, mode, "0/0", *device);
  REQUIRE(fuse);
  auto run = report::read_run_result(test::data("runs/" + sample + "_pytorch_h200.json"));
  REQUIRE(run);
  return {std::move(*fuse), {std::move(*run), {}}};
}

const report::CompareRow* row_named(const report::Comparison& c, const std::string& group) {
  for (const auto& r : c.rows) {
    if (r.group == group) return &r;
  }
  return nullptr;
}

double pytorch_sum(const report::Comparison& c) {
  double sum = 0;
  for (const auto& r : c.rows) sum += r.pytorch_us.value_or(0.0);
  return sum;
}

const report::MeasuredRun kNoEngine{std::nullopt, "engine: not built/no GPU (no device)"};

}  // namespace

TEST_CASE("compare puts residual_mlp's measured kernels on fxscope's groups", "[report][compare]") {
  const auto f = fixture("residual_mlp", fusion::Mode::default_mode);
  auto c = report::compare_unit(f.fuse, "default", kNoEngine, f.pytorch);
  REQUIRE(c);
  CHECK(c->unit == "0/0");
  CHECK(c->device == "H200");
  // cuBLAS's GEMMs and Inductor's fused epilogue, as the H200 ran them (tests/data/runs).
  const auto* addmm = row_named(*c, "extern_kernels.addmm");
  const auto* mm = row_named(*c, "extern_kernels.mm");
  REQUIRE(addmm);
  REQUIRE(mm);
  CHECK(*addmm->pytorch_us == Approx(33.2894).epsilon(1e-4));
  CHECK(*mm->pytorch_us == Approx(14.9165 + 5.61275).epsilon(1e-4));
  CHECK(*addmm->predicted_us > 0.0);
  CHECK_FALSE(addmm->engine_us);
  // Every measured microsecond lands on a row; nothing is outside the plan here.
  CHECK(pytorch_sum(*c) == Approx(c->pytorch.kernel_us));
  CHECK(row_named(*c, "(nodes outside the plan)") == nullptr);
  CHECK(row_named(*c, "(unattributed kernels)") == nullptr);
  CHECK(c->pytorch.present);
  CHECK(c->pytorch.total_us == Approx(144.752).epsilon(1e-4));
  CHECK(c->predicted_launches == 3.0);
  CHECK_FALSE(c->engine.present);
  CHECK(c->engine.why_absent == "engine: not built/no GPU (no device)");
}

TEST_CASE("compare in eager puts each op's kernels on its own group", "[report][compare]") {
  const auto f = fixture("pointwise_chain", fusion::Mode::eager);
  auto c = report::compare_unit(f.fuse, "eager", kNoEngine, f.pytorch);
  REQUIRE(c);
  CHECK(pytorch_sum(*c) == Approx(c->pytorch.kernel_us));
  CHECK(row_named(*c, "(nodes outside the plan)") == nullptr);
  std::size_t measured = 0;
  for (const auto& r : c->rows) {
    if (r.pytorch_us.value_or(0.0) > 0) ++measured;
  }
  CHECK(measured == 21);  // the 21 eager kernels of the run, one op each
}

TEST_CASE("compare of fused kernels that share nodes counts each microsecond once",
          "[report][compare]") {
  // pointwise_chain's three kernels all recompute the chain's first nodes.
  const auto f = fixture("pointwise_chain", fusion::Mode::default_mode);
  auto c = report::compare_unit(f.fuse, "default", kNoEngine, f.pytorch);
  REQUIRE(c);
  CHECK(pytorch_sum(*c) == Approx(c->pytorch.kernel_us));
  CHECK(c->pytorch.kernel_us == Approx(36.38).epsilon(1e-3));
  // fxscope forms Inductor's three kernels exactly, so each row takes its kernel whole.
  REQUIRE(c->rows.size() == 3);
  CHECK(*c->rows[0].pytorch_us == Approx(18.65).epsilon(1e-3));
  CHECK(*c->rows[1].pytorch_us == Approx(1.02).epsilon(1e-2));
  CHECK(*c->rows[2].pytorch_us == Approx(16.70).epsilon(1e-3));
}

TEST_CASE("compare takes the engine column from a run in the same schema", "[report][compare]") {
  const auto f = fixture("graph_breaks", fusion::Mode::default_mode);
  auto c = report::compare_unit(f.fuse, "default", f.pytorch, f.pytorch);
  REQUIRE(c);
  CHECK(c->engine.present);
  for (const auto& r : c->rows) CHECK(r.engine_us == r.pytorch_us);
  const auto j = report::to_json(*c);
  CHECK(j["totals"]["engine"]["present"] == true);
  CHECK(j["totals"]["pytorch"]["kernel_us"].get<double>() == Approx(2.82).epsilon(1e-2));
  CHECK(j["groups"][0]["predicted_us"].is_number());
  CHECK_THAT(report::to_text(*c), Catch::Contains("[0/0] mode default: predicted on H200"));
}

TEST_CASE("compare refuses a run of another unit and notes a missing mode", "[report][compare]") {
  auto f = fixture("residual_mlp", fusion::Mode::default_mode);
  auto other = f.pytorch;
  other.run->unit = "1/0";
  auto c = report::compare_unit(f.fuse, "default", kNoEngine, other);
  REQUIRE_FALSE(c);
  CHECK(c.error().message == "pytorch run: it ran unit 1/0, not unit 0/0");

  other.run->unit = "0/0";
  other.run->modes.resize(1);  // eager only
  c = report::compare_unit(f.fuse, "default", kNoEngine, other);
  REQUIRE(c);
  CHECK_FALSE(c->pytorch.present);
  CHECK(c->pytorch.why_absent == "pytorch: the run has no mode default");
  const auto j = report::to_json(*c);
  CHECK(j["groups"][0]["pytorch_us"].is_null());
}

TEST_CASE("compare says how much of a CUDA-graph mode's kernel time ran inside the graphs",
          "[report][compare]") {
  // residual_mlp's PyTorch run on the H200: reduce-overhead replays all three kernels in a CUDA
  // graph; default launches them one by one.
  const auto graphed = fixture("residual_mlp", fusion::Mode::reduce_overhead);
  auto ro = report::compare_unit(graphed.fuse, "reduce-overhead", kNoEngine, graphed.pytorch);
  REQUIRE(ro);
  CHECK(ro->pytorch.cuda_graph_share == Approx(1.0));
  CHECK_THAT(report::to_text(*ro), Catch::Contains("100.0% inside CUDA graphs"));
  const auto plain = fixture("residual_mlp", fusion::Mode::default_mode);
  auto def = report::compare_unit(plain.fuse, "default", kNoEngine, plain.pytorch);
  REQUIRE(def);
  CHECK(def->pytorch.cuda_graph_share == 0.0);
  CHECK_THAT(report::to_text(*def), !Catch::Contains("inside CUDA graphs"));
}
