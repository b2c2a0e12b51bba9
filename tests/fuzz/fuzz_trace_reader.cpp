// Fuzz target: fxscope::trace::read_trace on arbitrary bytes, the whole TORCH_TRACE reader
// (envelopes, payloads, compile units, graph breaks, recompiles, metrics).

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fxscope/trace/log_scanner.h"
#include "fxscope/trace/trace_log.h"

namespace {

using fxscope::trace::TraceLog;

// read_trace takes a path, so the input goes into an in-memory file opened by its /proc path; one
// file serves every run, since libFuzzer calls the target millions of times.
int input_file() {
  static const int fd = memfd_create("fxscope_fuzz_trace", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  return fd;
}

void write_input(int fd, const std::uint8_t* data, std::size_t size) {
  if (ftruncate(fd, 0) != 0) std::abort();
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
}

// The log's views point into its mapping, which ASan does not watch: a view that ran past the
// input would read the mapping's slack silently, so the bounds are checked here instead.
void check_inside(std::string_view text, std::string_view part) {
  if (part.empty()) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(text.data());
  const auto at = reinterpret_cast<std::uintptr_t>(part.data());
  if (at < begin || at + part.size() > begin + text.size()) std::abort();
}

// Touches what a caller of read_trace reads, so that a dangling or out-of-range value shows.
std::size_t walk(const TraceLog& log) {
  const std::string_view text = log.text();
  std::size_t seen = log.stats().unknown_kinds() + log.graph_break_total();
  for (const auto& unit : log.units()) {
    for (const auto& artifact : unit.artifacts) {
      check_inside(text, artifact.envelope);
      check_inside(text, artifact.payload.raw);
      seen += artifact.payload.text().size();
    }
    for (const auto envelope : unit.runtime_metrics) check_inside(text, envelope);
    if (unit.metrics) check_inside(text, unit.metrics->envelope);
    for (const auto& m : unit.backward_metrics) check_inside(text, m.envelope);
    seen += unit.dynamo_sizes().size();
    if (log.find_unit(unit.id) == nullptr) std::abort();
    for (const std::size_t index : unit.graph_breaks) {
      if (index >= log.graph_breaks().size()) std::abort();
    }
    if (unit.recompile && *unit.recompile >= log.recompiles().size()) std::abort();
  }
  for (const auto& artifact : log.global_artifacts()) {
    check_inside(text, artifact.payload.raw);
    seen += artifact.payload.text().size();
  }
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // The line scanner alone on libFuzzer's exact-size heap copy: read_trace's mapping hides a
  // read past the end from ASan, this copy does not.
  fxscope::trace::LogScanner scanner(bytes);
  fxscope::trace::RawRecord record;
  while (scanner.next(record)) {
    check_inside(bytes, record.whole);
    check_inside(bytes, record.json);
    check_inside(bytes, record.payload.raw);
  }

  const int fd = input_file();
  write_input(fd, data, size);
  const auto log = fxscope::trace::read_trace("/proc/self/fd/" + std::to_string(fd));
  if (log) {
    // Kept in a volatile so that the optimizer cannot drop the reads walk() makes.
    volatile std::size_t sink = walk(*log);
    static_cast<void>(sink);
  }
  return 0;
}
