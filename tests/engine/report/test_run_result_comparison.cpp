// A/B of two modes: each kernel of B against the time A spent on the same nodes, what only A
// ran, and the largest wins and losses.
#include <catch2/catch.hpp>

#include "fxscope/report/run_result.h"
#include "fxscope/report/run_result_comparison.h"
#include "samples.h"

namespace fxscope::test {
namespace {

using report::ModeSide;

// A side of MODE with TOTAL_US and LAUNCHES, its kernels as (name, nodes, us).
struct Planned {
  std::string name;
  std::vector<std::string> nodes;
  double us = 0;
};
ModeSide make_side(const std::string& mode, bool measured, double total_us, double launches,
                   const std::vector<Planned>& kernels) {
  ModeSide out;
  out.measured = measured;
  out.run.mode = mode;
  out.run.total_us = total_us;
  out.run.launches = launches;
  for (const Planned& k : kernels) {
    report::RunKernel& kernel = out.run.kernels.emplace_back();
    kernel.name = k.name;
    kernel.nodes = k.nodes;
    kernel.us = k.us;
    out.run.kernel_us += k.us;
  }
  return out;
}

// Eager: one kernel per op. Fused: mul+erf+add in one kernel, the GEMM alone, and a copy.
ModeSide eager() {
  return make_side("eager", true, 185.9, 4,
                   {{"mul_kernel", {"mul"}, 3.0},
                    {"erf_kernel", {"erf"}, 3.0},
                    {"add_kernel", {"add"}, 4.0},
                    {"gemm", {"addmm"}, 30.0},
                    {"view_copy", {"clone"}, 2.5}});
}

ModeSide fused() {
  return make_side("default", false, 120.0, 3,
                   {{"fused_mul_erf_add", {"mul", "erf", "add"}, 4.5},
                    {"gemm", {"addmm"}, 33.0},
                    {"input_copy", {}, 1.5}});
}

}  // namespace

TEST_CASE("A/B compares each kernel of B with A's time on the same nodes", "[report][run]") {
  const auto ab = report::compare_modes(eager(), fused());
  CHECK(ab.a.run.total_us == Approx(185.9));
  CHECK(ab.b.run.launches == Approx(3));
  REQUIRE(ab.rows.size() == 3);
  CHECK(ab.rows[0].name == "fused_mul_erf_add");
  CHECK(ab.rows[0].a_us == Approx(10.0));
  CHECK(ab.rows[0].delta_us() == Approx(-5.5));
  CHECK(ab.rows[1].delta_us() == Approx(3.0));
  // The clone eager ran and the fused plan dropped.
  CHECK(ab.rows[2].name == "only in eager");
  CHECK(ab.rows[2].nodes == std::vector<std::string>{"clone"});
  CHECK(ab.rows[2].delta_us() == Approx(-2.5));
  CHECK(ab.b_unmatched_us == Approx(1.5));
  CHECK(ab.a_unmatched_us == Approx(0));

  const auto wins = ab.largest_wins(5);
  REQUIRE(wins.size() == 2);
  CHECK(wins[0].name == "fused_mul_erf_add");
  CHECK(wins[1].name == "only in eager");
  const auto losses = ab.largest_losses(1);
  REQUIRE(losses.size() == 1);
  CHECK(losses[0].name == "gemm");
}

TEST_CASE("A measured mode becomes a side with its totals and attributed kernels",
          "[report][run]") {
  report::RunMode mode;
  mode.mode = "reduce-overhead";
  mode.total_us = 132.6;
  mode.launches = 4;
  mode.kernels.push_back({"k", "g", {"a", "b"}, {"linear"}, 10.0, 0.0, 1, {}, {}, true, {}});
  const ModeSide side = report::side_of(mode);
  CHECK(side.measured);
  CHECK(side.run.mode == "reduce-overhead");
  CHECK(side.run.total_us == Approx(132.6));
  REQUIRE(side.run.kernels.size() == 1);
  CHECK(side.run.kernels[0].nodes.size() == 2);
  // Against itself, nothing changes.
  const auto same = report::compare_modes(side, side);
  REQUIRE(same.rows.size() == 1);
  CHECK(same.rows[0].delta_us() == Approx(0));
  CHECK(same.largest_wins(3).empty());
  CHECK(same.largest_losses(3).empty());
}

TEST_CASE("A/B of eager and default on the H200 run of residual_mlp", "[report][run]") {
  const auto run = report::read_run_result(data("runs/residual_mlp_pytorch_h200.json"));
  REQUIRE(run.ok());
  const auto ab = report::compare_modes(report::side_of(*run->find_mode("eager")),
                                        report::side_of(*run->find_mode("default")));
  CHECK(ab.a.run.launches == Approx(9));
  CHECK(ab.b.run.launches == Approx(4));
  REQUIRE(ab.rows.size() == 5);
  // The fused bias + GELU + residual kernel against eager's seven elementwise kernels.
  const auto wins = ab.largest_wins(2);
  REQUIRE(wins.size() == 2);
  // Eager's second GEMM is addmm_1, which the post-grad graph calls mm_default: the names differ
  // between the graphs PyTorch ran, so it shows as a win on one row and a loss on another.
  CHECK(wins[0].name == "only in eager");
  CHECK(wins[0].nodes == std::vector<std::string>{"addmm_1"});
  CHECK(wins[1].name == "triton_poi_fused_add_addmm_erf_mul_0");
  CHECK(wins[1].a_us == Approx(7.1728).epsilon(1e-4));
  CHECK(wins[1].b_us == Approx(1.3744).epsilon(1e-4));
  const auto losses = ab.largest_losses(1);
  REQUIRE(losses.size() == 1);
  CHECK(losses[0].b_us == Approx(14.9165).epsilon(1e-4));
}

}  // namespace fxscope::test
