#include "fxscope/trace/trace_log.h"

#include <algorithm>

#include "fxscope/trace/json_scan.h"
#include "fxscope/trace/log_locator.h"
#include "fxscope/trace/log_scanner.h"
#include "fxscope/trace/md5.h"
#include "fxscope/trace/trace_builder.h"

namespace fxscope::trace {

std::size_t TraceStats::unknown_kinds() const {
  return static_cast<std::size_t>(
      std::count_if(kinds.begin(), kinds.end(), [](const KindCount& k) { return !k.understood; }));
}

const CompileUnit* TraceLog::find_unit(const CompileId& id) const {
  const auto it = std::find_if(units_.begin(), units_.end(),
                               [&](const CompileUnit& u) { return u.id.same_compile(id); });
  return it == units_.end() ? nullptr : &*it;
}

std::size_t TraceLog::graph_break_total() const {
  std::size_t total = 0;
  for (const auto& gb : graph_breaks_) total += gb.count;
  return total;
}

namespace {

// The md5 in `"has_payload": "<md5>"`, found by text search: the envelope is already known to
// be sound, and this runs on records the builder may not have parsed.
std::string_view declared_md5(std::string_view json) {
  constexpr std::string_view kKey = "\"has_payload\"";
  const auto at = json.find(kKey);
  if (at == std::string_view::npos) return {};
  const auto open = json.find('"', at + kKey.size());
  if (open == std::string_view::npos) return {};
  const auto close = json.find('"', open + 1);
  if (close == std::string_view::npos) return {};
  return json.substr(open + 1, close - open - 1);
}

bool payload_intact(const RawRecord& record) {
  const auto md5 = declared_md5(record.json);
  return md5.empty() || md5_hex(record.payload.text()) == md5;
}

}  // namespace

Result<TraceLog> read_trace(const std::string& path, const ReadOptions& options) {
  auto located = locate_log(path, options.rank);
  if (!located) return located.error();
  TraceLog log;
  log.path_ = located->path;
  log.other_logs_ = std::move(located->others);
  log.other_logs_.insert(log.other_logs_.end(), located->copies.begin(), located->copies.end());
  log.unread_files_ = std::move(located->unread);
  log.rank_ = located->rank;
  log.ranks_ = std::move(located->ranks);

  TraceBuilder builder(log);
  LogScanner scanner;
  RawRecord record;
  RawRecord last;
  // Records are built as the text arrives, while a compressed log is still being decompressed.
  const auto read = [&](std::string_view text, bool whole) {
    scanner.extend(text, whole);
    while (scanner.next(record)) {
      builder.add(record);
      if (options.verify_all_payloads && !record.json.empty() && !payload_intact(record)) {
        log.warnings_.push_back({log.path() + ":" + std::to_string(record.line),
                                 "payload differs from its has_payload md5"});
      }
      last = record;
    }
  };
  auto file = LogFile::open(located->path, options.max_decompressed_bytes, read);
  if (!file) return file.error();
  log.file_ = std::move(*file);

  const std::string_view text = log.text();
  // Said of a compressed log, whose text is not what is on disk.
  const std::string decompressed =
      log.compression() == Compression::none
          ? std::string()
          : " after " + std::string(compression_name(log.compression())) + " decompression";
  if (text.empty()) {
    return make_error(log.path() + ": empty file" + decompressed +
                      "; expected a TORCH_TRACE log (lines of glog-prefixed JSON records)");
  }
  if (builder.good_records() == 0) {
    return make_error(log.path() + ": not a TORCH_TRACE log" + decompressed + ": none of its " +
                      std::to_string(scanner.lines()) +
                      " lines is a glog-prefixed JSON record (\"V1129 12:42:26.033000 458 "
                      "f.py:1] {...}\")");
  }
  // Only the end of a log can be cut short (a crash, a copy in progress): a compressed stream says
  // so itself; else check the last record against its md5. Said once, beside the line warnings.
  if (!log.file_.cut_short().empty()) {
    log.truncated_ = true;
    log.warnings_.push_back(
        {log.path() + ":" + std::to_string(last.line),
         log.file_.cut_short() +
             ": the file was cut short in this record; the records before it are read"});
  } else if (!last.json.empty() && !declared_md5(last.json).empty() && !payload_intact(last)) {
    log.truncated_ = true;
    log.warnings_.push_back(
        {log.path() + ":" + std::to_string(last.line),
         "the log ends inside this record's payload (" + std::to_string(last.payload.line_count) +
             " lines, md5 differs from has_payload): the file was cut short or edited"});
  } else if (text.back() != '\n' && !scan_envelope(last.json)) {
    log.truncated_ = true;
    log.warnings_.push_back({log.path() + ":" + std::to_string(last.line),
                             "the log ends inside this record's envelope: the file was cut short"});
  }
  builder.finish(scanner.lines(), scanner.payload_lines());
  return log;
}

}  // namespace fxscope::trace
