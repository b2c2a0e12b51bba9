#include "fxscope/cost/prediction_error.h"

#include <algorithm>

namespace fxscope::cost {

PredictionError prediction_error(const std::vector<PredictedMeasured>& pairs,
                                 double predicted_total_us, double measured_total_us) {
  PredictionError e;
  e.predicted_us = predicted_total_us;
  e.measured_us = measured_total_us;
  std::vector<double> factors;
  factors.reserve(pairs.size());
  for (const auto& p : pairs) {
    if (p.predicted_us <= 0 || p.measured_us <= 0) continue;
    factors.push_back(std::max(p.predicted_us / p.measured_us, p.measured_us / p.predicted_us));
  }
  e.kernels = factors.size();
  if (factors.empty()) return e;
  std::sort(factors.begin(), factors.end());
  e.median_factor = factors[factors.size() / 2];
  e.p90_factor = factors[(factors.size() - 1) * 9 / 10];
  return e;
}

}  // namespace fxscope::cost
