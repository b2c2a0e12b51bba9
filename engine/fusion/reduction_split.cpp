// Inductor's split-reduction heuristic, with its device constants (threads per SM, warps).

#include "fxscope/fusion/reduction_split.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

namespace fxscope::fusion {
namespace {

constexpr std::int64_t kMinElementsPerThread = 32;
constexpr std::int64_t kMaxElementsPerThread = 512;
constexpr std::int64_t kThreadsPerSm = 2048;
constexpr std::int64_t kThreadsPerBlock = 8 * 32;  // num_warps = 8

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The divisor of N closest to TARGET (sympy.divisors, the first of equals).
std::int64_t closest_divisor(std::int64_t n, std::int64_t target) {
  std::int64_t best = 1;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    for (const std::int64_t c : {d, n / d}) {
      if (std::llabs(c - target) < std::llabs(best - target) ||
          (std::llabs(c - target) == std::llabs(best - target) && c < best)) {
        best = c;
      }
    }
  }
  return best;
}

// The split size of a reduction too large to spread thinner: 512 elements a thread, or a
// divisor of R within 50 of it.
std::int64_t largest_split_size(std::int64_t r) {
  const std::int64_t closest = closest_divisor(r, kMaxElementsPerThread);
  return std::llabs(closest - kMaxElementsPerThread) < 50 ? closest : kMaxElementsPerThread;
}

// The split size from the per-device target when it is near a divisor of R (within SLACK).
std::int64_t even_split_size(std::int64_t r, std::int64_t target, std::int64_t slack) {
  const std::int64_t closest = closest_divisor(r, target);
  return std::llabs(closest - target) < slack ? std::max(closest, kMinElementsPerThread) : target;
}

std::int64_t inner_splits(std::int64_t r, std::int64_t numel, std::int64_t sms,
                          std::int64_t min_rnumel) {
  if (numel >= 2 * sms || r <= min_rnumel) return 1;
  const std::int64_t min_device = kMinElementsPerThread * sms * kThreadsPerSm;
  const std::int64_t max_device = kMaxElementsPerThread * sms * kThreadsPerSm;
  std::int64_t split_size = 0;
  if (r * numel <= min_device) {
    split_size = kMinElementsPerThread;
  } else if (r * numel < max_device) {
    const std::int64_t target_blocks = sms * kThreadsPerSm / (2 * kThreadsPerBlock);
    const std::int64_t blocks_per_output = ceil_div(target_blocks, numel);
    split_size = even_split_size(r, ceil_div(r, kThreadsPerBlock * blocks_per_output), 30);
  } else {
    split_size = largest_split_size(r);
  }
  return ceil_div(r, split_size * kThreadsPerBlock);
}

std::int64_t outer_splits(std::int64_t r, std::int64_t numel, std::int64_t sms) {
  constexpr std::int64_t kRValuesPerThread = 4;
  constexpr std::int64_t kXValuesPerBlock = 128;
  const std::int64_t min_device = kMinElementsPerThread * sms * kThreadsPerSm;
  const std::int64_t max_device = kMaxElementsPerThread * sms * kThreadsPerSm;
  const std::int64_t xblocks = ceil_div(numel, kXValuesPerBlock);
  std::int64_t split_size = 0;
  if (r * numel < min_device) {
    split_size = kMinElementsPerThread;
  } else if (r * numel < max_device) {
    const std::int64_t target_blocks = ceil_div(sms * kThreadsPerSm / kThreadsPerBlock, xblocks);
    split_size = even_split_size(r, ceil_div(r, kRValuesPerThread * target_blocks), 20);
  } else {
    split_size = largest_split_size(r);
  }
  return ceil_div(r, kRValuesPerThread * split_size);
}

}  // namespace

std::int64_t reduction_split(std::int64_t rnumel, std::int64_t numel, bool inner,
                             const PlanOptions& options) {
  if (rnumel <= 1) return 1;
  const std::int64_t sms = options.sm_count;
  // A single output is always treated as an inner reduction.
  if (numel == 1) return inner_splits(rnumel, numel, sms, options.split_rnumel);
  if (rnumel <= kMinElementsPerThread || numel >= sms * 2 * 32) return 1;
  return inner ? inner_splits(rnumel, numel, sms, options.split_rnumel)
               : outer_splits(rnumel, numel, sms);
}

ReductionHint reduction_hint(std::int64_t rnumel, std::int64_t numel, std::optional<bool> inner,
                             const PlanOptions& options) {
  if (numel == 1) return ReductionHint::inner;
  if (rnumel <= kMinElementsPerThread || numel >= options.sm_count * 2 * 32 || !inner) {
    return ReductionHint::neither;
  }
  return *inner ? ReductionHint::inner : ReductionHint::outer;
}

ReductionHint second_pass_hint(std::int64_t split, std::int64_t numel, ReductionHint hint) {
  if (hint != ReductionHint::outer) return hint;
  const bool tiny = (split <= 512 && numel <= 512) || (split <= 1024 && numel <= 256);
  return tiny ? ReductionHint::outer_tiny : hint;
}

namespace {

// A load's part in Reduction.num_splits' vote: one over every loop variable votes; one that skips
// a variable does not, nor does an indirect one, whose temporary stands in for the variables; an
// address not modelled is unknown.
enum class Voter : std::uint8_t { votes, abstains, unknown };

Voter voter(const MemoryDep& d) {
  if (d.opaque) return d.tag != 0 ? Voter::abstains : Voter::unknown;
  const auto unused = [](const IndexTerm& t) { return t.mult == 0; };
  const bool skips = d.terms.empty() || std::any_of(d.terms.begin(), d.terms.end(), unused);
  return skips ? Voter::abstains : Voter::votes;
}

// Inner when more of READS' addresses vote inner than outer by IS_OUTER; nullopt where a read's
// address is not modelled or none votes.
std::optional<bool> vote_inner(const std::vector<MemoryDep>& reads,
                               const std::function<bool(const MemoryDep&)>& is_outer) {
  std::size_t inner = 0;
  std::size_t outer = 0;
  for (const MemoryDep& d : reads) {
    const Voter v = voter(d);
    if (v == Voter::unknown) return std::nullopt;
    if (v == Voter::votes) ++(is_outer(d) ? outer : inner);
  }
  if (inner + outer == 0) return std::nullopt;
  return inner > outer;
}

}  // namespace

bool no_spanning_read(const std::vector<MemoryDep>& reads) {
  return std::all_of(reads.begin(), reads.end(),
                     [](const MemoryDep& d) { return voter(d) == Voter::abstains; });
}

std::optional<bool> inner_by_reads(const std::vector<MemoryDep>& reads, std::int64_t rnumel) {
  // Reduction variables are the innermost digits, those of places below RNUMEL.
  return vote_inner(reads, [&](const MemoryDep& d) {
    return std::all_of(d.terms.begin(), d.terms.end(),
                       [&](const IndexTerm& t) { return t.place >= rnumel || t.mult > 1; });
  });
}

std::optional<bool> inner_by_flat_reads(const std::vector<MemoryDep>& reads, std::int64_t rnumel) {
  return vote_inner(reads, [&](const MemoryDep& d) {
    // The flattened variable's step: the digit at place 1 (the innermost reduced one), if any.
    std::int64_t stride = 0;
    for (const IndexTerm& t : d.terms) {
      if (t.place == 1 && rnumel > 1) stride += t.mult;
    }
    return stride > 1;
  });
}

}  // namespace fxscope::fusion
