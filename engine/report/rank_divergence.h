#pragma once
// Where ranks' facts disagree, as Divergence entries, most harmful first.

#include <vector>

#include "fxscope/report/rank_comparison.h"
#include "rank_facts.h"

namespace fxscope::report {

struct RankedFacts {
  int rank = 0;
  RankFacts facts;
};

// Nothing when every rank agrees, but collectives never waited on are reported even when every
// rank (or the only one) has them: they are a fault whether or not the ranks agree.
std::vector<Divergence> find_divergence(const std::vector<RankedFacts>& ranks);

}  // namespace fxscope::report
