#pragma once
// Turns the scanner's records into a TraceLog: routes each record to its compile unit, parses
// the envelopes that matter, counts the rest.

#include <cstddef>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fxscope/trace/json_scan.h"
#include "fxscope/trace/log_scanner.h"
#include "fxscope/trace/trace_log.h"

namespace fxscope::trace {

// Record kinds torch.export logs about its problems and guards (kept even without a payload).
bool export_record(std::string_view kind);

// Fills one TraceLog record by record; finish() completes the cross-unit parts.
class TraceBuilder {
 public:
  explicit TraceBuilder(TraceLog& log) : log_(log) {}

  void add(const RawRecord& record);
  void finish(std::size_t lines, std::size_t payload_lines);
  std::size_t good_records() const { return good_records_; }

 private:
  void bad_line(const RawRecord& record, std::string_view why);
  void warn(std::size_t line, std::string message);
  void count_kind(std::string_view kind, bool understood);
  // False when the record turns out to be broken (a bad line, already reported).
  bool route(const RawRecord& record, const EnvelopeHead& head);
  void add_artifact(CompileUnit* unit, Artifact artifact);
  void add_chromium_event(const RawRecord& record, const CompileId& envelope_id);
  CompileUnit& unit_for(const CompileId& id, std::size_t line);
  Stack read_stack(const nlohmann::json& frames) const;
  void add_graph_break(CompileUnit& unit, const Artifact& artifact);
  // GB hit by compile ID (its record at LINE), listed under UNIT: counted again where the log
  // has the same break already.
  void record_graph_break(CompileUnit& unit, GraphBreak gb, const CompileId& id, std::size_t line);
  void add_recompile(CompileUnit& unit, const Artifact& artifact);
  // torch.export and AOTInductor logs carry no compile ids: their records become units here.
  void gather_producer_units();
  void read_export_record(CompileUnit& unit, const Artifact& artifact);
  // The symbols created outside any compile id (torch.export's) go to the producer unit being
  // traced when each was made: the first whose records reach past its line.
  void place_producer_symbols();
  // A log that records no graph break reason (PyTorch before 2.5) still names each resume
  // function Dynamo compiled after a break (torch_dynamo_resume_in_FN_at_LINE): one break each.
  void infer_graph_breaks();

  TraceLog& log_;
  std::vector<std::string> strings_;  // the `str` intern table: index -> file name
  std::map<CompileId, std::size_t> unit_index_;
  std::map<CompileId, std::vector<ChromiumEvent>> pending_events_;  // by unit id, log order
  std::unordered_map<std::string, std::size_t> kind_index_;
  std::vector<ShapeSymbol> producer_symbols_;  // create_symbol records without a compile id
  std::size_t good_records_ = 0;
  std::size_t silenced_warnings_ = 0;
  // chromium_event payloads that are no JSON event, and the first one's line: one warning says
  // how many the compile-time figures leave out.
  std::size_t unread_events_ = 0;
  std::size_t first_unread_event_ = 0;
};

}  // namespace fxscope::trace
