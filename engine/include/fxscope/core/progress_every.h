#pragma once
// A progress line at most every few seconds from a long loop, from any thread: the loop counts
// its items, and a line goes out when a mark has passed (and once at the end), so a user of a
// long compile or tuning sees it move without a line per item.

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>

namespace fxscope::core {

class ProgressEvery {
 public:
  using Sink = std::function<void(const std::string&)>;
  // WHAT names the items ("kernels compiled"); each line reads "N of TOTAL WHAT (S s)".
  ProgressEvery(Sink sink, std::size_t total, std::string what, double seconds = 5.0)
      : sink_(std::move(sink)),
        total_(total),
        what_(std::move(what)),
        every_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds))),
        start_(Clock::now()),
        next_mark_(start_ + every_) {}

  // N of the items are done: a line when the next mark has passed.
  void done(std::size_t n) {
    if (!sink_) return;
    const std::lock_guard lock(mutex_);
    if (Clock::now() < next_mark_) return;
    say(n);
    next_mark_ = Clock::now() + every_;
  }
  // Every item is done: the closing line.
  void finish() {
    if (!sink_) return;
    const std::lock_guard lock(mutex_);
    say(total_);
  }

 private:
  using Clock = std::chrono::steady_clock;
  void say(std::size_t n) {
    const double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    char time[32];
    std::snprintf(time, sizeof time, " (%.0f s)", seconds);
    sink_(std::to_string(n) + " of " + std::to_string(total_) + " " + what_ + time);
  }

  Sink sink_;
  std::size_t total_;
  std::string what_;
  Clock::duration every_;
  Clock::time_point start_;
  Clock::time_point next_mark_;
  std::mutex mutex_;
};

}  // namespace fxscope::core
