#pragma once
// How many pieces Inductor splits a reduction into (ir.Reduction.num_splits with
// InductorChoices.reduction_split_factor): a reduction with too few outputs to fill the GPU is
// run as two kernels, the first reducing SPLIT parts of every row, the second combining them.

#include <cstdint>
#include <optional>
#include <vector>

#include "fxscope/fusion/memory_index.h"

#include "fxscope/fusion/planner.h"

namespace fxscope::fusion {

// Reduction.num_splits' hint: whether the reduced elements lie together in memory (inner) or a
// row apart (outer; outer_tiny for the second pass of a split one with few rows and parts), or
// neither: no load spans every loop variable, or the reduction is too short or has outputs
// enough that the vote is not taken.
enum class ReductionHint : std::uint8_t { inner, outer, outer_tiny, neither };

// The hint of a reduction of RNUMEL elements into NUMEL outputs whose loads voted INNER (nullopt:
// no vote).
ReductionHint reduction_hint(std::int64_t rnumel, std::int64_t numel, std::optional<bool> inner,
                             const PlanOptions& options);
// Reduction._multilayer_second_step_hint: the pass combining SPLIT parts of each of NUMEL rows.
ReductionHint second_pass_hint(std::int64_t split, std::int64_t numel, ReductionHint hint);

// The split of a reduction of RNUMEL elements into NUMEL outputs; INNER when the reduced
// elements are contiguous in memory (an inner reduction), else it is an outer one. 1: no split.
std::int64_t reduction_split(std::int64_t rnumel, std::int64_t numel, bool inner,
                             const PlanOptions& options);

// Reduction.num_splits tells inner from outer by the loads of the reduction's own loop, its
// inlined producers included (READS, over the kept dims then the RNUMEL reduced ones): each load
// over every loop variable votes outer when no reduction variable steps it by one, and the
// reduction is inner only on a majority. An indirect load (an embedding, a gather) casts no vote:
// its recorded address holds the index's temporary where the loop variables were
// (extract_read_writes runs no IndexPropagation, so an iota index is no exception), so it spans
// too few of them. nullopt when another address is not known (the layout then decides) or no
// load spans every variable (no_spanning_read: Inductor then does not split).
std::optional<bool> inner_by_reads(const std::vector<MemoryDep>& reads, std::int64_t rnumel);
// Whether no load of READS spans every loop variable (each is broadcast along one, or indirect),
// none being an address not modelled.
bool no_spanning_read(const std::vector<MemoryDep>& reads);

// The same vote for a split's first pass (Reduction.create_multilayer, whose
// _multilayer_wrap_loader reads each part through one flattened reduction variable): a load's
// stride is what one step of the lowest reduced digit adds, so a reduction over a channel and the
// positions of a channels-last value, inner as a whole, is outer part by part.
std::optional<bool> inner_by_flat_reads(const std::vector<MemoryDep>& reads, std::int64_t rnumel);

}  // namespace fxscope::fusion
