// Fuzz target: the artifact payload parsers of the trace reader, fed the same bytes:
// parse_recompile_reasons (recompile_reasons, plain text or a JSON list) and parse_graph_break
// (dynamo_graph_break_reason).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fxscope/trace/graph_break.h"
#include "fxscope/trace/recompile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static_cast<void>(fxscope::trace::parse_recompile_reasons(text));
  static_cast<void>(fxscope::trace::parse_graph_break(text));
  return 0;
}
