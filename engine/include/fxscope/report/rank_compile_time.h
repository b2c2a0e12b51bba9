#pragma once
// Compile time across the ranks of a distributed job (`fxscope-cli compile-time DIR
// --all-ranks`): each rank's total, the rank that compiled slowest, and the phases whose own
// time on that rank differs most from the other ranks' median: why it was slowest.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fxscope/core/result.h"
#include "fxscope/report/compile_time.h"

namespace fxscope::report {

// One rank's compile time; `error` set (and the rank left out of the comparison) when its log
// could not be read.
struct RankCompileTime {
  int rank = 0;
  std::string path;
  double total_s = 0;  // every unit's forward and backward compiles (CompileTimeReport)
  std::size_t units = 0;
  std::vector<PhaseTime> by_phase;  // the rank's own ranking of phases
  std::string error;
};

// One phase name's own time on the slowest rank against the median of the other ranks (a phase
// a rank never ran counts 0 s there).
struct PhaseGap {
  std::string name;
  std::string what;
  double slowest_s = 0;
  double others_s = 0;
  double gap_s() const { return slowest_s - others_s; }
};

struct RanksCompileTime {
  std::string dir;
  std::vector<RankCompileTime> ranks;  // ascending by rank
  std::optional<std::size_t> slowest;  // index into ranks; nullopt with fewer than 2 read
  double others_median_s = 0;          // the other read ranks' median total
  std::vector<PhaseGap> gaps;          // the largest gap (slower on the slowest rank) first
};

// Reads every rank's log in DIR; an Error when DIR holds no ranked logs.
Result<RanksCompileTime> compile_time_across_ranks(const std::string& dir);

// One rank's entry from REPORT, its log's compile_time(): for a reader that has the log open
// for more than its compile time (compare_ranks).
RankCompileTime rank_compile_time(int rank, std::string path, CompileTimeReport report);

// Fills RANKS' slowest, others_median_s and gaps from its ranks (those read).
void find_slowest_rank(RanksCompileTime& ranks);

std::string to_text(const RanksCompileTime& ranks);
nlohmann::json to_json(const RanksCompileTime& ranks);

}  // namespace fxscope::report
