#pragma once
// The human form of a FuseReport: per unit a table of kernels (ours, in launch order) with their
// predicted time, the agreement with Inductor and its disagreements, and the per-mode summary.

#include <cstddef>
#include <string>

#include "fxscope/report/fuse_report.h"

namespace fxscope::report {

// LIMIT caps the kernel rows per graph (0: all); the rest is summarized in one line.
std::string to_text(const FuseReport& report, std::size_t limit);

}  // namespace fxscope::report
