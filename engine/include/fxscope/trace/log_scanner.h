#pragma once
// The line-oriented pass over a log: splits it into envelope lines and their payload lines
// without parsing any JSON, so that the caller decides what deserves a full parse.

#include <cstddef>
#include <string_view>

#include "fxscope/trace/payload.h"

namespace fxscope::trace {

// One envelope line and the TAB lines that follow it.
struct RawRecord {
  std::size_t line = 0;    // 1-based
  std::string_view json;   // the text after the glog prefix; empty when there is no prefix
  std::string_view whole;  // the whole line, for messages
  Payload payload;
};

// Walks the text once. next() yields records in order; lines that are not a record (and TAB
// lines with no record before them) are counted as bad and handed to the caller as records
// with an empty json.
//
// The text may also come in parts, while it is being decompressed: extend() hands over a longer
// view of the same buffer, and until it is whole next() yields only the records known to be
// complete (a line after them that is not one of their TAB lines).
class LogScanner {
 public:
  LogScanner() = default;
  explicit LogScanner(std::string_view text) { extend(text, true); }

  void extend(std::string_view text, bool whole);
  bool next(RawRecord& record);
  std::size_t lines() const { return line_; }
  std::size_t payload_lines() const { return payload_lines_; }

 private:
  std::string_view next_line();
  // Whether the line at the read position belongs to the payload being read.
  bool payload_continues() const;

  std::string_view text_;
  std::size_t end_ = 0;  // past the last complete line of text_
  bool whole_ = false;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  std::size_t payload_lines_ = 0;
};

// The JSON part of a glog-prefixed line ("V1129 12:42:26.033000 458 file.py:276] {...}"), or an
// empty view when the line has no such prefix.
std::string_view envelope_json(std::string_view line);

}  // namespace fxscope::trace
