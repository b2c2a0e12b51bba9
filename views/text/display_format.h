#pragma once
// How the views write the engine's values, so that the tree, the tables and the summary text say
// the same thing the same way.

#include <QString>
#include <cstddef>
#include <optional>
#include <string>

#include "fxscope/trace/stack_frame.h"

namespace fxscope::views {

// "capture.py:83": the file name without its folders, which the tooltips give in full.
QString short_location(const std::string& file, int line);
// "forward  capture.py:81"; for a frame the log did not record, the unit's PRODUCER where it has
// one ("torch.export", "AOTInductor": no Dynamo frame), else "(frame not logged)".
QString function_at(const trace::StackFrame& frame, const std::string& producer = {});
// "12", or an en dash where the log lacks that level.
QString count_text(const std::optional<std::size_t>& count);
// "4.03 s", or an en dash when the log has no compile time.
QString seconds_text(const std::optional<double>& seconds);

}  // namespace fxscope::views
