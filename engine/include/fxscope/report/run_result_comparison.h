#pragma once
// A/B of two modes of one compile unit: totals, launches, and per kernel of mode B the time the
// same post-grad nodes took in mode A. Works the same on measured runs and on the cost model's
// predictions, which is what the app shows before (or without) a GPU run.

#include <string>
#include <vector>

#include "fxscope/report/run_result.h"

namespace fxscope::report {

// One mode's side of a comparison: a run's mode as measured, or a plan priced by the cost model
// in the same form (each planned kernel named and grouped by its group).
struct ModeSide {
  RunMode run;
  bool measured = false;
};

ModeSide side_of(const RunMode& measured);

// One row: a kernel of B (named by its group where attributed, else by the kernel's own name) (or,
// named "only in A", A's kernels whose nodes B runs in none).
struct KernelDelta {
  std::string name;
  std::vector<std::string> nodes;
  double a_us = 0;  // the same nodes' share of A's kernels
  double b_us = 0;
  double delta_us() const { return b_us - a_us; }
};

struct ModeComparison {
  ModeSide a;
  ModeSide b;
  std::vector<KernelDelta> rows;  // B's kernels in order, then the A-only row if any
  // A's kernel time that no node of B accounts for (kernels without nodes, such as copies).
  double a_unmatched_us = 0;
  double b_unmatched_us = 0;

  // Up to COUNT rows where B is fastest relative to A (most negative delta first), or slowest.
  std::vector<KernelDelta> largest_wins(std::size_t count) const;
  std::vector<KernelDelta> largest_losses(std::size_t count) const;
};

ModeComparison compare_modes(ModeSide a, ModeSide b);

}  // namespace fxscope::report
