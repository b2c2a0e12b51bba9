#pragma once
// The text of the centre panel: what the log says about one compile unit or one frame, written
// for a PyTorch user with no log at hand.

#include <QString>
#include <cstddef>

#include "fxscope/report/summary.h"

namespace fxscope::views {

// Counts, restarts, graph breaks (with why and hints) and recompile reasons of UNIT, an index
// into SUMMARY.units.
QString unit_summary_text(const report::Summary& summary, std::size_t unit);
// The frame's function and one line per compile unit of it.
QString frame_summary_text(const report::Summary& summary, int frame_id);
// The whole log in the words of `fxscope-cli summary`.
QString log_summary_text(const report::Summary& summary);

}  // namespace fxscope::views
