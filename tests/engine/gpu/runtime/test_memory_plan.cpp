#include <catch2/catch.hpp>

#include "fxscope/gpu/memory_plan.h"

using namespace fxscope;

TEST_CASE("memory plan reuses a dead buffer and keeps pinned ones", "[gpu]") {
  // a (steps 0-1) dies before c (step 2) is written: c takes a's bytes; b is pinned.
  const std::vector<gpu::BufferLife> lives = {
      {1000, 0, 1, false}, {512, 1, 3, true}, {900, 2, 3, false}};
  const auto plan = gpu::plan_memory(lives);
  CHECK(plan.offsets[2] == plan.offsets[0]);
  CHECK(plan.offsets[1] != plan.offsets[0]);
  CHECK(plan.arena_bytes == 1024 + 512);
  CHECK(plan.total_bytes == 1024 + 512 + 1024);
  for (const auto o : plan.offsets) CHECK(o % 256 == 0);
}

TEST_CASE("memory plan never overlaps buffers that live at the same time", "[gpu]") {
  std::vector<gpu::BufferLife> lives;
  for (std::size_t i = 0; i < 40; ++i) lives.push_back({100 + 37 * i, i, i + (i % 5), i % 7 == 0});
  const auto plan = gpu::plan_memory(lives);
  for (std::size_t i = 0; i < lives.size(); ++i) {
    for (std::size_t j = i + 1; j < lives.size(); ++j) {
      const bool overlap_in_time = (lives[i].pinned || lives[j].first_step <= lives[i].last_step) &&
                                   (lives[j].pinned || lives[i].first_step <= lives[j].last_step);
      if (!overlap_in_time) continue;
      const bool apart = plan.offsets[i] + lives[i].bytes <= plan.offsets[j] ||
                         plan.offsets[j] + lives[j].bytes <= plan.offsets[i];
      INFO("buffers " << i << " and " << j);
      CHECK(apart);
    }
  }
  CHECK(plan.arena_bytes < plan.total_bytes);
}
