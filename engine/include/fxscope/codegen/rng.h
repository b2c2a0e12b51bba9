#pragma once
// Dropout's random numbers (Inductor's prims.inductor_seeds / inductor_lookup_seed /
// inductor_random) made reproducible: every mode of a run draws the same numbers, so fused
// outputs compare exactly with eager's.
//
// - Seeds come from the run's seed on the host (splitmix64 of (run seed, seeds op, slot)); the
//   seeds op is a tiny generated kernel that writes those constants, so a CUDA graph replays it.
// - inductor_random is Philox4x32-10 (Random123) keyed by the looked-up seed, counting the
//   element's row-major linear index: an element's value depends on the seed and its index only,
//   never on the kernel, the group it was fused into or the launch configuration.
// - Eager's graph has aten.rand / randn where the post-grad graph has inductor_random: its K-th
//   random op (graph order, as replace_random numbers them) draws from seed K of the first seeds
//   op, at the same linear index, so eager drops exactly the elements the compiled modes drop.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/core/result.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::codegen {

// Philox4x32-10 on the host: the reference the generated device code is checked against.
std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                           std::array<std::uint32_t, 2> key);
// 'rand': uniform in [0, 1) from the top 24 bits of Philox's first word at counter INDEX.
float rng_uniform(std::uint64_t seed, std::uint64_t index);
// 'randn': Box-Muller on the first two words (the device's logf/cospif may differ by an ulp).
float rng_normal(std::uint64_t seed, std::uint64_t index);

// The COUNT seeds the ORDINAL-th inductor_seeds op of a graph holds in a run seeded RUN_SEED.
std::vector<std::int64_t> rng_seed_values(std::uint64_t run_seed, std::size_t ordinal,
                                          std::int64_t count);

// True for prims.inductor_seeds, which a kernel of its own computes (seeds_kernel).
bool is_rng_seeds_op(const std::string& target);

// The kernel of GROUP (one prims.inductor_seeds node): writes rng_seed_values(RUN_SEED, k, count)
// where k counts the seeds ops before it in GRAPH, so eager's graph and the post-grad graph agree.
Result<GeneratedKernel> seeds_kernel(const graph::Graph& graph, const fusion::KernelGroup& group,
                                     std::uint64_t run_seed);

}  // namespace fxscope::codegen
