#pragma once
// What `fxscope-cli summary` shows: per compile unit the ops at each level and Inductor's kernel
// launches, plus the log's graph breaks, recompiles and every warning met on the way.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/report/graph_break_impact.h"
#include "fxscope/report/guards_report.h"
#include "fxscope/trace/graph_break.h"
#include "fxscope/trace/recompile.h"
#include "fxscope/trace/stack_frame.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

// One compile unit, counted: each figure is nullopt when the log lacks that level.
struct UnitSummary {
  std::string compile_id;  // "0/1": frame_id/frame_compile_id, as recompile reasons name it
  int frame_id = -1;
  int attempts = 1;                          // Dynamo restarted the compile attempts - 1 times
  std::vector<std::string> restart_reasons;  // why it restarted, from compilation_metrics
  trace::StackFrame frame;       // the function Dynamo compiled (innermost frame of dynamo_start)
  trace::StackFrame user_frame;  // the innermost frame in the user's own code (not a library)
  std::optional<std::size_t> dynamo_ops;        // ops of the Dynamo graph (what the user wrote)
  std::optional<std::size_t> aten_ops;          // ops of the AOT graphs (inference or fwd + bwd)
  std::optional<std::size_t> post_grad_ops;     // ops of the post-grad graphs Inductor fused
  std::optional<std::size_t> inductor_kernels;  // launches in the output code(s), all kinds
  std::size_t triton_launches = 0;              // launches of kernels the output code defines
  std::size_t extern_launches = 0;              // extern_kernels.* and ATen fallbacks
  std::optional<double> compile_time_s;         // entire_frame_compile_time_s
  std::optional<std::int64_t> guard_count;
  std::string failure;                     // "fail_type: fail_reason" of a failed compile
  std::string producer;                    // "torch.export", "AOTInductor"; empty: torch.compile
  std::vector<std::string> export_issues;  // "missing fake kernel: torch.ops.mylib.foo"
  std::vector<std::size_t> graph_breaks;   // indices into Summary::graph_breaks
  std::optional<std::size_t> recompile;    // index into Summary::recompiles
};

// The whole log, summarized.
struct Summary {
  std::string path;                     // the log file read
  std::vector<std::string> other_logs;  // other ranks' logs beside it
  std::size_t bytes = 0;
  std::size_t lines = 0;
  std::vector<UnitSummary> units;
  std::vector<trace::GraphBreak> graph_breaks;  // deduplicated, with counts
  // Every graph break priced per call (graph_break_impact.h), the largest loss first.
  std::vector<BreakImpact> break_impacts;
  cost::DeviceSpec impact_device;  // the device they are priced on
  std::vector<trace::Recompile> recompiles;
  // The recompiles replayed and explained: their causes ranked with the fix for each, and the
  // frames that reached the recompile limit (guards_report.h, as `guards --check-recompiles`).
  RecompileReport recompile_check;
  Warnings warnings;  // from the reader and from every parser

  std::size_t frame_count() const;
  std::size_t graph_break_hits() const;  // the sum of the counts
};

// Parses every graph and output code of LOG for its counts (on two threads where there is work
// for two); never fails: what does not parse is a warning.
Summary summarize(const trace::TraceLog& log);

}  // namespace fxscope::report
