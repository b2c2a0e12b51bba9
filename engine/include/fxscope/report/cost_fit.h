#pragma once
// The cost model's fit data (tests/data/cost_fit, written by tools/cost_fit/extract_kernels.py):
// every planned kernel of the engine runs of corpus logs, with the features fxscope computes from
// the log and the time the engine measured; and the check of a calibration against it, per log,
// mode and graph (forward or backward), on the logs the fit did not see.

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/cost/prediction_error.h"
#include "fxscope/cost/roofline.h"

namespace fxscope::report {

// One planned kernel of one log, unit, mode and graph.
struct FitKernel {
  std::string log;    // the corpus log's folder name
  std::string mode;   // eager, default, reduce-overhead, max-autotune
  std::string graph;  // forward or backward
  cost::KernelWork work;
  std::optional<double> measured_us;  // absent where the run timed no kernel on its nodes
};

// One graph in one mode: the engine's CUPTI kernel time of a call.
struct FitGraph {
  std::string log;
  std::string mode;
  std::string graph;
  std::string device;
  double kernel_us = 0;
};

struct FitData {
  std::vector<FitKernel> kernels;
  std::vector<FitGraph> graphs;
};

// Reads PREFIX_kernels.csv.gz and PREFIX_totals.csv; a missing column or a bad number is an
// Error naming the file and line.
Result<FitData> read_fit_data(const std::string& prefix);

// One checked graph: the prediction's error against the engine's measurement.
struct FitCheck {
  std::string log;
  std::string mode;
  std::string graph;
  cost::PredictionError error;
};

// The logs the fit is fitted to: every other log of DATA by name, from the first
// (tools/cost_fit/fit_cost_model.py splits the same way); the others check it.
std::set<std::string> training_logs(const FitData& data);

// Prices every kernel of DATA on DEVICE and compares, per log, mode and graph of the logs not in
// TRAINING_LOGS (all logs when it is empty), in DATA's order.
std::vector<FitCheck> check_fit(const FitData& data, const cost::DeviceSpec& device,
                                const std::set<std::string>& training_logs);

}  // namespace fxscope::report
