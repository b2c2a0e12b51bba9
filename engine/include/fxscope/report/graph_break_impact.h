#pragma once
// What each graph break costs a call of the compiled code, as the cost model predicts it: the ops
// Dynamo left outside compiled graphs (they run eagerly, one kernel each), a host sync where the
// break brings a value to Python, and the split itself: the tensors handed across the break are
// written by one graph and read back by the next, one more kernel boundary, and the resumed
// graph's guards checked on every call. docs/compile-time.md defines each term.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/cost/device_spec.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::report {

struct UnitSummary;

// The predicted cost of one distinct graph break (TraceLog::graph_breaks()), per call that
// reaches it, in microseconds on one device with host launches.
struct BreakImpact {
  std::size_t graph_break = 0;         // index into the log's (and the summary's) graph breaks
  std::vector<std::string> split;      // the compiles that ended at the break: "0/0"
  std::vector<std::string> resumed;    // the compiles that resumed after it: "1/0"
  std::vector<std::string> eager_ops;  // ATen ops run eagerly at the break
  bool host_sync = false;              // the break copies a value to the host
  // Dynamo gave up on the frame (a break in a loop): all of it runs eagerly, and the log holds
  // no graph of it to price.
  bool frame_skipped = false;
  double eager_input_bytes = 0;  // the value the eager ops read
  double crossing_bytes = 0;     // activations the resumed graph takes from before it
  std::size_t crossing_tensors = 0;
  std::size_t unsized_tensors = 0;  // crossing tensors of symbolic size, not counted
  double eager_us = 0;
  double sync_us = 0;
  double crossing_us = 0;
  double launch_us = 0;
  double guard_us = 0;  // the resumed graph's guard check as Dynamo timed it; 0 when not logged
  double lost_us() const { return eager_us + sync_us + crossing_us + launch_us + guard_us; }
};

// Dynamo's name for the function that resumes FUNCTION after a break at LINE: a break in
// torch_dynamo_resume_in_forward_at_83 resumes in torch_dynamo_resume_in_forward_at_85.
std::string resume_function(const std::string& function, int line);

// Whether AFTER compiled the code that resumes BEFORE's break BREAK_SITE. A break inside a
// function the compiled frame called resumes at the line of that call, so each line of the
// break's stack is tried, innermost first.
bool resumes(const UnitSummary& before, const trace::GraphBreak& break_site,
             const UnitSummary& after);

// The first unit after UNIT (indices into UNITS) that compiled the resumption of UNIT's break
// BREAK_SITE; nullopt when the log holds none.
std::optional<std::size_t> resumed_unit(const std::vector<UnitSummary>& units, std::size_t unit,
                                        const trace::GraphBreak& break_site);

// Every graph break of LOG priced on DEVICE, the largest predicted loss first. UNITS is the
// summary's, parallel to LOG's units.
std::vector<BreakImpact> rank_break_impact(const trace::TraceLog& log,
                                           const std::vector<UnitSummary>& units,
                                           const cost::DeviceSpec& device);

// The device break impact is priced on, the one the app's canvas uses.
cost::DeviceSpec break_impact_device();

}  // namespace fxscope::report
