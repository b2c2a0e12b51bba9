// Prints how fast a log is read and summarized, stage by stage, as median of repeats, in MB/s of
// the log's text (after decompression, for a .gz or .zst log; read_trace includes it):
//   bench_summary [LOG_OR_DIR] [REPEATS]   (default: the largest bundled sample, LLaMA 48 layers,
//   15 repeats)
#include <algorithm>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fxscope/report/summary.h"
#include "fxscope/report/summary_json.h"
#include "fxscope/report/summary_text.h"
#include "fxscope/trace/trace_log.h"

namespace {

using Clock = std::chrono::steady_clock;

double median_ms(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The fastest run: on a shared machine, the one least slowed by others' work.
double best_ms(const std::vector<double>& v) {
  return *std::min_element(v.begin(), v.end());
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : std::string(FXSCOPE_SAMPLES_DIR) + "/llama_48layer";
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 15;
  std::vector<double> read_ms, summarize_ms, json_ms, text_ms, total_ms;
  std::size_t bytes = 0;
  std::size_t stored = 0;
  auto compression = fxscope::trace::Compression::none;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    auto log = fxscope::trace::read_trace(path);
    if (!log) {
      std::fprintf(stderr, "bench_summary: %s\n", log.error().message.c_str());
      return 1;
    }
    read_ms.push_back(ms_since(t0));
    bytes = log->stats().bytes;
    stored = log->stored_bytes();
    compression = log->compression();
    const auto t1 = Clock::now();
    const auto summary = fxscope::report::summarize(*log);
    summarize_ms.push_back(ms_since(t1));
    const auto t2 = Clock::now();
    const auto json = fxscope::report::to_json(summary).dump(1);
    json_ms.push_back(ms_since(t2));
    const auto t3 = Clock::now();
    const auto text = fxscope::report::to_text(summary);
    text_ms.push_back(ms_since(t3));
    total_ms.push_back(ms_since(t0) - text_ms.back());
    if (json.empty() || text.empty()) return 1;
  }
  const double mb = static_cast<double>(bytes) / 1e6;
  const bool plain = compression == fxscope::trace::Compression::none;
  std::printf("log: %s (%.1f MB of text; %s, %.1f MB on disk), median of %d runs\n", path.c_str(),
              mb, std::string(fxscope::trace::compression_name(compression)).c_str(),
              static_cast<double>(stored) / 1e6, repeats);
  std::printf("  read_trace      %8.2f ms  %8.0f MB/s  (best %.2f ms, %.0f MB/s)\n",
              median_ms(read_ms), mb / median_ms(read_ms) * 1e3, best_ms(read_ms),
              mb / best_ms(read_ms) * 1e3);
  std::printf("  summarize       %8.2f ms  (parses every graph and output code)\n",
              median_ms(summarize_ms));
  std::printf("  to_json + dump  %8.2f ms\n", median_ms(json_ms));
  std::printf("  to_text         %8.2f ms\n", median_ms(text_ms));
  std::printf(
      "  summary --json  %8.2f ms  %8.0f MB/s  (best %.2f ms, %.0f MB/s; in process, target "
      ">= %d MB/s)\n",
      median_ms(total_ms), mb / median_ms(total_ms) * 1e3, best_ms(total_ms),
      mb / best_ms(total_ms) * 1e3, plain ? 300 : 150);
  return 0;
}
