// Prints how close the cost model comes to the engine's measured kernel times on the corpus logs
// its calibration was not fitted to: per log, mode and graph the kernels compared, the median
// and 90th-percentile error factor per kernel, and the whole graph's predicted over measured
// kernel time; then how many graphs meet the targets (median <= 1.25, p90 <= 2, total within
// 15%) and the same figures for the uncalibrated roofline.
//   bench_cost_fit [PREFIX] [--all] [--kernels LOG]
// PREFIX names the fit data (default tests/data/cost_fit/h100: PREFIX_kernels.csv.gz and
// PREFIX_totals.csv, from tools/cost_fit/extract_kernels.py); --all checks the training logs too;
// --kernels LOG lists LOG's kernels instead, each with its curve, prediction and measurement.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "fxscope/cost/calibration.h"
#include "fxscope/report/cost_fit.h"

namespace {

using fxscope::report::FitCheck;

bool meets(const FitCheck& c) {
  return c.error.median_factor <= 1.25 && c.error.p90_factor <= 2.0 &&
         std::abs(c.error.total_ratio() - 1.0) <= 0.15;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void summarize(const char* label, const std::vector<FitCheck>& checks) {
  std::vector<double> medians;
  std::vector<double> p90s;
  std::vector<double> totals;
  std::size_t ok_median = 0;
  std::size_t ok_p90 = 0;
  std::size_t ok_total = 0;
  std::size_t ok_all = 0;
  for (const auto& c : checks) {
    medians.push_back(c.error.median_factor);
    p90s.push_back(c.error.p90_factor);
    totals.push_back(std::abs(std::log(std::max(c.error.total_ratio(), 1e-9))));
    ok_median += c.error.median_factor <= 1.25;
    ok_p90 += c.error.p90_factor <= 2.0;
    ok_total += std::abs(c.error.total_ratio() - 1.0) <= 0.15;
    ok_all += meets(c);
  }
  std::printf(
      "%s: %zu graph-modes; median factor <= 1.25 in %zu, p90 <= 2 in %zu, total within 15%% "
      "in %zu, all three in %zu; median over graphs of the median factor %.2f, of the p90 %.2f, "
      "of the total's factor %.2f\n",
      label, checks.size(), ok_median, ok_p90, ok_total, ok_all, median_of(medians),
      median_of(p90s), std::exp(median_of(totals)));
}

// Every kernel of LOG: what it is, the curve that prices it, predicted and measured time.
void list_kernels(const fxscope::report::FitData& data, const fxscope::cost::DeviceSpec& device,
                  const std::string& log) {
  std::printf("%-16s %-8s %-28s %-14s %-5s %-32s %10s %10s %7s %9s %9s\n", "mode", "graph", "group",
              "class", "prec", "shape", "predicted", "measured", "factor", "rows", "flops/row");
  for (const auto& k : data.kernels) {
    if (k.log != log) continue;
    const double us =
        fxscope::cost::predict_kernel(k.work, device, fxscope::cost::LaunchMode::cuda_graph)
            .device_us;
    const double measured = k.measured_us.value_or(0);
    std::printf("%-16s %-8s %-28.28s %-14s %-5s %-32.32s %8.1fus %8.1fus %6.2fx %9.0f %9.0f\n",
                k.mode.c_str(), k.graph.c_str(), k.work.name.c_str(),
                std::string(fxscope::cost::to_string(k.work.kernel_class)).c_str(),
                std::string(fxscope::cost::to_string(k.work.precision)).c_str(),
                k.work.shape.c_str(), us, measured, measured > 0 ? us / measured : 0.0, k.work.rows,
                k.work.rows > 0 ? k.work.flops / k.work.rows : 0.0);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string prefix = FXSCOPE_FIT_DATA;
  bool all = false;
  std::string kernels_of;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--all") {
      all = true;
    } else if (arg == "--kernels" && i + 1 < argc) {
      kernels_of = argv[++i];
    } else {
      prefix = arg;
    }
  }
  auto data = fxscope::report::read_fit_data(prefix);
  if (!data) {
    std::fprintf(stderr, "bench_cost_fit: %s\n", data.error().message.c_str());
    return 1;
  }
  const auto& cal = fxscope::cost::builtin_calibration();
  const auto device =
      fxscope::cost::find_device(cal.device_spec.empty() ? "H100" : cal.device_spec);
  if (!device) {
    std::fprintf(stderr, "bench_cost_fit: unknown device %s\n", cal.device_spec.c_str());
    return 1;
  }
  if (!kernels_of.empty()) {
    list_kernels(*data, *device, kernels_of);
    return 0;
  }
  const std::set<std::string> split = fxscope::report::training_logs(*data);
  std::set<std::string> training;
  if (!all) training = split;
  const auto checks = fxscope::report::check_fit(*data, *device, training);
  std::printf("calibration fitted on %s (%zu training logs), checked on %s\n",
              cal.measured_on.c_str(), split.size(), all ? "every log" : "the held-out logs");
  std::printf("%-42s %-16s %-8s %6s %7s %7s %10s %10s %7s\n", "log", "mode", "graph", "kernels",
              "median", "p90", "predicted", "measured", "total");
  for (const auto& c : checks) {
    std::printf("%-42s %-16s %-8s %6zu %6.2fx %6.2fx %8.0fus %8.0fus %6.2fx%s\n", c.log.c_str(),
                c.mode.c_str(), c.graph.c_str(), c.error.kernels, c.error.median_factor,
                c.error.p90_factor, c.error.predicted_us, c.error.measured_us,
                c.error.total_ratio(), meets(c) ? "" : "  *");
  }
  summarize("calibrated", checks);
  auto fixed = *device;
  fixed.calibrated = false;
  summarize("uncalibrated roofline", fxscope::report::check_fit(*data, fixed, training));
  return 0;
}
