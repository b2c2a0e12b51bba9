// The fitted cost model against the engine's measured kernels (tests/data/cost_fit, an H100):
// the features fxscope computes for the fit from real logs, and the held-out check of the
// compiled-in calibration. No timing is measured here: predictions meet stored measurements.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "fxscope/cost/calibration.h"
#include "fxscope/report/cost_fit.h"
#include "fxscope/report/fuse_report.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// The kernel classes of LOG's unit 0/0 planned in MODE.
std::multiset<cost::KernelClass> classes_of(const std::string& log, fusion::Mode mode) {
  auto trace = trace::read_trace(test::sample("corpus/" + log));
  REQUIRE(trace);
  auto fuse = report::build_fuse_report(*trace, mode, "0/0", *cost::find_device("H100"),
                                        report::ModeCoverage::requested_mode_only);
  REQUIRE(fuse);
  std::multiset<cost::KernelClass> out;
  for (const auto& g : fuse->units.front().graphs) {
    for (const auto& group : g.fusion.ours.groups) {
      out.insert(report::kernel_work(group, g.fusion.post_grad).kernel_class);
    }
  }
  return out;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Tally {
  std::size_t graphs = 0;
  std::size_t median_ok = 0;
  std::size_t p90_ok = 0;
  std::size_t total_ok = 0;
  double median_of_medians = 0;
  double median_of_p90s = 0;
};

Tally tally(const std::vector<report::FitCheck>& checks) {
  Tally t;
  std::vector<double> medians;
  std::vector<double> p90s;
  for (const auto& c : checks) {
    if (c.error.kernels == 0) continue;
    ++t.graphs;
    t.median_ok += c.error.median_factor <= 1.25;
    t.p90_ok += c.error.p90_factor <= 2.0;
    t.total_ok += std::abs(c.error.total_ratio() - 1.0) <= 0.15;
    medians.push_back(c.error.median_factor);
    p90s.push_back(c.error.p90_factor);
  }
  if (t.graphs > 0) {
    t.median_of_medians = median_of(medians);
    t.median_of_p90s = median_of(p90s);
  }
  return t;
}

}  // namespace

TEST_CASE("convolutions split by grouping, channels-last copies by layout", "[cost][fit]") {
  // MobileNet's depthwise convolutions are grouped; its 1x1 convolutions are not.
  const auto mobilenet = classes_of("tv_mobilenet_v3_small_ro", fusion::Mode::default_mode);
  CHECK(mobilenet.count(cost::KernelClass::grouped_conv) > 0);
  CHECK(mobilenet.count(cost::KernelClass::conv) > 0);
  // A channels-last model's eager pointwise ops walk NHWC tensors through NCHW sizes.
  const auto cl = classes_of("tv_regnet_y_400mf_cl", fusion::Mode::eager);
  CHECK(cl.count(cost::KernelClass::transpose) > 0);
  CHECK(cl.count(cost::KernelClass::pointwise) > 0);
  // A transformer in fp32 has GEMMs and row reductions, no convolution and nothing transposed.
  const auto gpt2 = classes_of("hf_gpt2_max_autotune", fusion::Mode::default_mode);
  CHECK(gpt2.count(cost::KernelClass::gemm) > 0);
  CHECK(gpt2.count(cost::KernelClass::persistent_reduction) > 0);
  CHECK(gpt2.count(cost::KernelClass::conv) == 0);
}

TEST_CASE("the fit data reads back, every kernel with a class", "[cost][fit]") {
  auto data = report::read_fit_data(test::data("cost_fit/h100"));
  REQUIRE(data);
  CHECK(data->kernels.size() > 30000);
  CHECK(data->graphs.size() > 200);
  std::size_t measured = 0;
  std::set<cost::KernelClass> classes;
  for (const auto& k : data->kernels) {
    measured += k.measured_us.has_value();
    classes.insert(k.work.kernel_class);
  }
  // The engine runs fxscope's own plan: nearly every planned group has its kernels.
  CHECK(measured > data->kernels.size() * 9 / 10);
  for (const auto c : {cost::KernelClass::pointwise, cost::KernelClass::gemm,
                       cost::KernelClass::conv, cost::KernelClass::persistent_reduction}) {
    CHECK(classes.contains(c));
  }
  for (const auto& g : data->graphs) CHECK(g.device.find("H100") != std::string::npos);
}

TEST_CASE("missing fit data is an error naming the file", "[cost][fit]") {
  auto data = report::read_fit_data(test::data("cost_fit/no_such_device"));
  REQUIRE_FALSE(data);
  CHECK_THAT(data.error().message, Catch::Contains("no_such_device_kernels.csv.gz"));
}

TEST_CASE("on held-out logs the calibration beats the datasheet roofline", "[cost][fit]") {
  const auto& cal = cost::builtin_calibration();
  REQUIRE_FALSE(cal.training_logs.empty());
  auto data = report::read_fit_data(test::data("cost_fit/h100"));
  REQUIRE(data);
  const std::set<std::string> training(cal.training_logs.begin(), cal.training_logs.end());
  auto device = *cost::find_device("H100");
  const Tally fitted = tally(report::check_fit(*data, device, training));
  device.calibrated = false;
  const Tally fixed = tally(report::check_fit(*data, device, training));
  REQUIRE(fitted.graphs > 100);
  // The bounds the held-out graphs meet (bench_cost_fit prints each graph): the per-kernel
  // median within 1.25x on most graphs, the typical graph's p90 within 2x.
  CHECK(fitted.median_of_medians <= 1.25);
  CHECK(fitted.median_of_p90s <= 2.0);
  CHECK(fitted.median_ok >= fitted.graphs * 7 / 10);
  CHECK(fitted.p90_ok >= fitted.graphs / 2);
  CHECK(fitted.median_ok > fixed.median_ok);
  CHECK(fitted.p90_ok > fixed.p90_ok);
  CHECK(fitted.total_ok > fixed.total_ok);
}
