#pragma once
// `fxscope-cli compare`: one compile unit in one mode, per fusion group of fxscope's plan, the
// cost model's prediction beside what the engine backend and real PyTorch measured. Measured
// kernels reach a group through the post-grad nodes they ran: whole where a kernel runs exactly
// the group's nodes, else shared evenly by its nodes (report/run_attribution.h, the rule the app's
// heat overlay follows too), so Inductor's kernels and fxscope's groups compare even where they
// differ. It reads saved runs without CUDA.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/cost/prediction_error.h"
#include "fxscope/report/fuse_report.h"
#include "fxscope/report/run_result.h"

namespace fxscope::report {

// One row: a planned group, or the measured time the plan has no group for.
struct CompareRow {
  std::string graph;  // the post-grad graph it belongs to ("[0/0] inductor_post_grad_graph line 9")
  std::string
      group;         // fxscope's kernel name; "(unattributed kernels)" / "(nodes outside the plan)"
  std::string kind;  // pointwise, reduction, extern ...; empty on the two extra rows
  std::vector<std::string> nodes;         // post-grad (eager: ATen) node names
  std::vector<std::string> dynamo_nodes;  // the user's own ops, where the log traces them
  std::optional<double> predicted_us;     // the model's kernel time, launch overhead apart
  std::optional<double> engine_us;        // per call; empty when the engine did not run
  std::optional<double> pytorch_us;
};

// One measured column: the run's totals, or why there is none.
struct MeasuredColumn {
  bool present = false;
  std::string why_absent;  // "engine: not built/no GPU (...)"
  std::string device;
  std::string torch_version;
  double kernel_us = 0;  // CUPTI kernel time of a call
  double total_us = 0;   // CUDA-event time of a call (median)
  double launches = 0;
  double attributed_share = 0;
  double cuda_graph_share = 0;  // of kernel_us, in kernels replayed inside CUDA graphs
  // The prediction against this column: per group with both times the error factor's median and
  // p90, and the predicted kernel time of the graphs it measured over its kernel_us.
  cost::PredictionError prediction_error;
};

struct Comparison {
  std::string path;
  std::string unit;
  std::string mode;
  std::string device;  // the cost model's device
  std::vector<CompareRow> rows;
  double predicted_kernel_us = 0;  // sum of the rows' predictions
  double predicted_total_us = 0;   // with launch overhead (or CUDA graph replay)
  double predicted_launches = 0;
  MeasuredColumn engine;
  MeasuredColumn pytorch;
  std::vector<std::string> notes;
};

// A measured run (saved `run --json`, or a child's output) and where it came from, or why
// there is none.
struct MeasuredRun {
  std::optional<RunResult> run;
  std::string why_absent;
};

// Compares unit UNIT (the report's only unit) in MODE. A run of another unit is an Error naming
// both; a run without MODE leaves its column empty with a note.
Result<Comparison> compare_unit(const FuseReport& fuse, const std::string& mode,
                                const MeasuredRun& engine, const MeasuredRun& pytorch);

nlohmann::json to_json(const Comparison& comparison);
std::string to_text(const Comparison& comparison);

}  // namespace fxscope::report
