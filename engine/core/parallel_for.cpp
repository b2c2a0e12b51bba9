#include "fxscope/core/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>
#include <vector>

namespace fxscope {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& job) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) job(i);
  };
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                      std::max<std::size_t>(count, 1));
  std::vector<std::future<void>> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.push_back(std::async(std::launch::async, work));
  work();
  for (auto& w : workers) w.get();
}

}  // namespace fxscope
