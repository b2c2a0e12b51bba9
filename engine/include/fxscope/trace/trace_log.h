#pragma once
// The result of reading one TORCH_TRACE log: compile units, graph breaks, recompiles, stats.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/core/result.h"
#include "fxscope/trace/artifact.h"
#include "fxscope/trace/compile_unit.h"
#include "fxscope/trace/graph_break.h"
#include "fxscope/trace/log_file.h"
#include "fxscope/trace/recompile.h"

namespace fxscope::trace {

// How often one record kind occurs; `understood` is false for kinds the reader only counts.
struct KindCount {
  std::string kind;  // "chromium_event", or "artifact:<name>" for artifacts
  std::size_t count = 0;
  bool understood = false;
};

// Counts over the whole file, for the summary and for spotting what the reader skipped.
struct TraceStats {
  std::size_t bytes = 0;  // of text, after decompression
  std::size_t lines = 0;
  std::size_t records = 0;
  std::size_t payload_lines = 0;
  std::size_t bad_lines = 0;     // lines that are neither a record nor a payload line
  std::vector<KindCount> kinds;  // first-seen order
  std::size_t unknown_kinds() const;
};

// How read_trace picks and checks its input.
struct ReadOptions {
  int rank = 0;  // which rank's log to read when a directory holds several ranks
  // Check every payload against its md5 (slower); the last record is always checked, since a
  // log cut short ends there.
  bool verify_all_payloads = false;
  // A gzip or zstd log is decompressed into memory, up to this many bytes of text.
  std::size_t max_decompressed_bytes = kMaxDecompressedBytes;
};

// A read log. Owns the text (mapped, or decompressed) that every string_view in it points into,
// so it is move-only.
class TraceLog {
 public:
  TraceLog() = default;
  TraceLog(TraceLog&&) noexcept = default;
  TraceLog& operator=(TraceLog&&) noexcept = default;
  TraceLog(const TraceLog&) = delete;
  TraceLog& operator=(const TraceLog&) = delete;

  const std::string& path() const { return path_; }  // the log file read
  Compression compression() const { return file_.compression(); }
  std::size_t stored_bytes() const { return file_.stored_bytes(); }  // on disk
  // The logs beside it that were not read: other ranks and runs, then other copies (compressed
  // or plain) of the logs there, this one's included.
  const std::vector<std::string>& other_logs() const { return other_logs_; }
  std::optional<int> rank() const { return rank_; }  // from "_rank_N" in the name or folder
  // Every rank the directory read holds, ascending; empty when its logs carry no ranks.
  const std::vector<int>& ranks() const { return ranks_; }
  // The files beside it that are not TORCH_TRACE logs (a launcher's output, notes): not read.
  const std::vector<std::string>& unread_files() const { return unread_files_; }
  std::string_view text() const { return file_.text(); }

  const std::vector<CompileUnit>& units() const { return units_; }
  const CompileUnit* find_unit(const CompileId& id) const;  // any attempt of the compile
  const std::vector<GraphBreak>& graph_breaks() const { return graph_breaks_; }
  std::size_t graph_break_total() const;  // every artifact, repeats included
  const std::vector<Recompile>& recompiles() const { return recompiles_; }
  const std::vector<Artifact>& global_artifacts() const { return global_artifacts_; }
  const TraceStats& stats() const { return stats_; }
  const Warnings& warnings() const { return warnings_; }
  bool truncated() const { return truncated_; }  // the last record was cut short

 private:
  friend class TraceBuilder;
  friend Result<TraceLog> read_trace(const std::string& path, const ReadOptions& options);

  std::string path_;
  LogFile file_;
  std::vector<std::string> other_logs_;
  std::optional<int> rank_;
  std::vector<int> ranks_;
  std::vector<std::string> unread_files_;
  std::vector<CompileUnit> units_;
  std::vector<GraphBreak> graph_breaks_;
  std::vector<Recompile> recompiles_;
  std::vector<Artifact> global_artifacts_;  // records with a payload but no compile id
  TraceStats stats_;
  Warnings warnings_;
  bool truncated_ = false;
};

// Reads PATH, a TORCH_TRACE log file (plain, gzip or zstd) or a directory holding
// dedicated_log_torch_trace*.log (or .log.gz, .log.zst).
// Bad lines become warnings; only an unusable input is an Error (one line naming the path).
Result<TraceLog> read_trace(const std::string& path, const ReadOptions& options = {});

}  // namespace fxscope::trace
