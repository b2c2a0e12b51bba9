#include "fxscope/trace/chromium_event.h"

#include <charconv>
#include <string>

#include "fxscope/trace/json_scan.h"

namespace fxscope::trace {

namespace {

// The contents of a JSON string literal without unescaping: event names and compile ids are
// plain identifiers, and a view keeps the event small.
std::optional<std::string_view> string_value(std::string_view raw) {
  if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return std::nullopt;
  return raw.substr(1, raw.size() - 2);
}

}  // namespace

std::optional<ChromiumEvent> ChromiumEvent::from_payload(const Payload& payload, std::size_t line) {
  ChromiumEvent event;
  event.line = line;
  event.args = "{}";
  bool has_name = false;
  bool has_phase = false;
  bool has_ts = false;
  const bool sound =
      for_each_member(payload.raw, [&](std::string_view key, std::string_view value) {
        if (key == "name") {
          const auto text = string_value(value);
          if (text) event.name = *text;
          has_name = text.has_value();
        } else if (key == "ph") {
          const auto ph = string_value(value);
          has_phase = ph && ph->size() == 1;
          if (has_phase) event.phase = ph->front();
        } else if (key == "ts") {
          const auto [end, ec] =
              std::from_chars(value.data(), value.data() + value.size(), event.ts_us);
          has_ts = ec == std::errc() && end == value.data() + value.size();
        } else if (key == "args" && !value.empty() && value.front() == '{') {
          event.args = value;
        }
        return true;
      });
  if (!sound || !has_name || !has_phase || !has_ts) return std::nullopt;
  return event;
}

std::optional<CompileId> ChromiumEvent::args_compile_id() const {
  std::optional<CompileId> id;
  for_each_member(args, [&](std::string_view key, std::string_view value) {
    if (key != "compile_id") return true;
    if (const auto text = string_value(value)) id = CompileId::parse(*text);
    return false;
  });
  return id;
}

}  // namespace fxscope::trace
