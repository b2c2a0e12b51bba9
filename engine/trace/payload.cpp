#include "fxscope/trace/payload.h"

namespace fxscope::trace {

std::string Payload::text() const {
  std::string out;
  out.reserve(raw.size());
  std::size_t pos = 0;
  while (pos <= raw.size() && line_count > 0) {
    const std::size_t nl = raw.find('\n', pos);
    const std::size_t end = nl == std::string_view::npos ? raw.size() : nl;
    std::string_view line = raw.substr(pos, end - pos);
    if (!line.empty() && line.front() == '\t') line.remove_prefix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (pos > 0) out += '\n';
    out += line;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

}  // namespace fxscope::trace
