// Graph breaks of logs that record no reasons, read from the resume functions Dynamo compiled
// after each break (symbolic_convert.py names them torch_dynamo_resume_in_FN_at_LINE).

#include <string>

#include "fxscope/core/text.h"
#include "fxscope/trace/trace_builder.h"

namespace fxscope::trace {

namespace {

constexpr std::string_view kResume = "torch_dynamo_resume_in_";

// FN and LINE of a resume function's name; false for any other name.
bool resumed_at(std::string_view name, std::string& fn, int& line) {
  if (!text::starts_with(name, kResume)) return false;
  name.remove_prefix(kResume.size());
  const std::size_t at = name.rfind("_at_");
  if (at == std::string_view::npos || at == 0) return false;
  const auto parsed = text::parse_int(name.substr(at + 4));
  if (!parsed) return false;
  fn = std::string(name.substr(0, at));
  line = static_cast<int>(*parsed);
  return true;
}

}  // namespace

void TraceBuilder::infer_graph_breaks() {
  if (!log_.graph_breaks_.empty()) return;  // the log records its breaks
  auto& units = log_.units_;
  for (std::size_t r = 0; r < units.size(); ++r) {
    const CompileUnit& resumed = units[r];
    const StackFrame* frame = resumed.compiled_frame();
    std::string fn;
    int line = 0;
    if (frame == nullptr || !resumed_at(frame->function, fn, line)) continue;
    // The break is in the last compile of FN (same file) before the resume function's.
    std::size_t owner = r;
    for (std::size_t u = 0; u < units.size(); ++u) {
      const StackFrame* f = units[u].compiled_frame();
      if (u == r || units[u].first_line > resumed.first_line || f == nullptr) continue;
      if (f->function == fn && f->file == frame->file) owner = u;
    }
    const CompileUnit* broken = owner == r ? nullptr : &units[owner];
    GraphBreak gb;
    gb.file = frame->file;
    gb.line = line;
    gb.reason = "graph break in " + fn;
    if (broken && broken->metrics && !broken->metrics->restart_reasons.empty()) {
      gb.reason = broken->metrics->restart_reasons.front();
    }
    gb.message = gb.reason + " (inferred from the resume function " + frame->function +
                 ": this log records no graph break reasons)";
    record_graph_break(units[owner], std::move(gb), units[owner].id, resumed.first_line);
  }
}

}  // namespace fxscope::trace
