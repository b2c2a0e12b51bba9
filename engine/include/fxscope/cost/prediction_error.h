#pragma once
// How far the cost model's predictions land from measured kernel times: per kernel the error
// factor max(predicted / measured, measured / predicted), its median and 90th percentile over a
// graph's kernels, and the ratio of the whole graph's predicted time to its measured time.

#include <cstddef>
#include <vector>

namespace fxscope::cost {

struct PredictedMeasured {
  double predicted_us = 0;
  double measured_us = 0;
};

struct PredictionError {
  std::size_t kernels = 0;   // pairs with a positive prediction and measurement
  double median_factor = 0;  // the upper median of the factors
  double p90_factor = 0;     // the factor at rank floor(0.9 x (kernels - 1)) ascending
  double predicted_us = 0;   // the whole graph's prediction (every planned kernel)
  double measured_us = 0;    // the whole graph's measured kernel time
  double total_ratio() const { return measured_us > 0 ? predicted_us / measured_us : 0.0; }
};

// PAIRS' factors; PREDICTED_TOTAL_US and MEASURED_TOTAL_US are the whole graph's, which may hold
// kernels no pair does (a group the run did not time, a kernel outside the plan).
PredictionError prediction_error(const std::vector<PredictedMeasured>& pairs,
                                 double predicted_total_us, double measured_total_us);

}  // namespace fxscope::cost
