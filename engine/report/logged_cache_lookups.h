#pragma once
// Cache lookups of one compile unit from the artifacts PyTorch writes per lookup
// (fx_graph_cache_hit / _miss / _bypass, aotautograd_cache_hit / _miss / _bypass), which carry
// the key, its details and the outcome even where no compile event does: a warm AOTAutograd hit
// loads its FX graphs without an inductor_compile event.

#include <vector>

#include "fxscope/report/compile_time.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::report {

// UNIT's lookups: for each cache with lookup artifacts, those artifacts in log order (the
// backward flag and reason taken from the event with the same key, where one exists); for a
// cache without them, FROM_EVENTS' lookups of it.
std::vector<CacheLookup> with_logged_lookups(const trace::CompileUnit& unit,
                                             std::vector<CacheLookup> from_events);

}  // namespace fxscope::report
