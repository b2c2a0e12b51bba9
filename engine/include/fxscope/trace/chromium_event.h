#pragma once
// One `chromium_event` record: the begin ("B"), end ("E") or instant ("i") of a phase Dynamo,
// AOTAutograd or Inductor timed with dynamo_timed. They are most of a log's records (about 100
// per compile), so each is kept as a few views into the log's text, not as a DOM.

#include <cstddef>
#include <optional>
#include <string_view>

#include "fxscope/trace/compile_id.h"
#include "fxscope/trace/payload.h"

namespace fxscope::trace {

struct ChromiumEvent {
  std::string_view name;  // "bytecode_tracing", "GraphLowering.run", ... as logged (raw JSON text)
  std::string_view args;  // the raw `args` object ("{}" when absent): compile_id, cache state, ...
  double ts_us = 0;       // microseconds since the epoch, as the event's `ts`
  char phase = '?';       // 'B', 'E' or 'i' ('X' and others are kept, and the report skips them)
  std::size_t line = 0;   // 1-based line of the envelope

  // Reads the event from its payload (the JSON object logged on the TAB-prefixed lines, read
  // in place: TABs and newlines are JSON whitespace). nullopt when it is not an object with a
  // string name, a one-letter ph and a numeric ts.
  static std::optional<ChromiumEvent> from_payload(const Payload& payload,
                                                   std::size_t envelope_line);
  // The compile id in args ("0/1"): the one way to place events logged outside a compile (the
  // autotuning of a kernel at its first call), whose envelopes carry no frame id.
  std::optional<CompileId> args_compile_id() const;
};

}  // namespace fxscope::trace
