// fxscope's count of cache lookups against PyTorch's own counters (expected.json), on every
// bundled log that has them: the corpus (captured with Inductor's caches off, so neither side
// may count a hit or a miss) and the cache captures of sample_graphs/pairs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fxscope/report/compile_time.h"
#include "fxscope/trace/trace_log.h"
#include "pytorch_counters.h"
#include "samples.h"

using namespace fxscope;

namespace {

int fxscope_lookups(const report::CompileTimeReport& times, const std::string& cache,
                    const std::string& state) {
  int n = 0;
  for (const auto& u : times.units) {
    n += static_cast<int>(std::count_if(u.caches.begin(), u.caches.end(), [&](const auto& l) {
      return l.cache == cache && l.state == state;
    }));
  }
  return n;
}

}  // namespace

TEST_CASE("cache hits and misses match PyTorch's counters on every bundled log",
          "[compile_time][corpus]") {
  std::size_t logs = 0;
  std::size_t with_lookups = 0;
  for (const std::string folder : {"corpus", "pairs"}) {
    for (const auto& d : std::filesystem::directory_iterator(test::sample(folder))) {
      const auto expected = d.path() / "expected.json";
      if (!d.is_directory() || !std::filesystem::exists(expected)) continue;
      const auto counters = test::pytorch_counters(d.path());
      auto log = trace::read_trace(d.path().string());
      INFO(d.path().string());
      REQUIRE(log.ok());
      const auto times = report::compile_time(*log);
      ++logs;
      const int hits = fxscope_lookups(times, "fx_graph", "hit");
      const int misses = fxscope_lookups(times, "fx_graph", "miss");
      CHECK(hits == test::pytorch_counter(counters, "inductor", "fxgraph_cache_hit"));
      CHECK(misses == test::pytorch_counter(counters, "inductor", "fxgraph_cache_miss"));
      CHECK(fxscope_lookups(times, "aot_autograd", "hit") ==
            test::pytorch_counter(counters, "aot_autograd", "autograd_cache_hit"));
      CHECK(fxscope_lookups(times, "aot_autograd", "miss") ==
            test::pytorch_counter(counters, "aot_autograd", "autograd_cache_miss"));
      if (hits + misses > 0) ++with_lookups;
    }
  }
  CHECK(logs > 60);
  CHECK(with_lookups == 3);  // cache_cold, cache_warm, cache_config
}
