#include "fxscope/trace/recompile.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "fxscope/core/text.h"

namespace fxscope::trace {

namespace {

constexpr std::string_view kUserStack = "User stack trace:";

// "4/1: ...", "4/1_2: ..." or "!0/4/1: ...": the start of one reason in the plain-text form.
std::optional<CompileId> reason_prefix(std::string_view line, std::size_t& text_start) {
  const auto colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0 || colon > 40) return std::nullopt;
  const char first = line.front();
  if (first != '!' && std::isdigit(static_cast<unsigned char>(first)) == 0) return std::nullopt;
  auto id = CompileId::parse(line.substr(0, colon));
  // "4/1: reason"; a cut-short entry may end at the colon.
  if (id) text_start = std::min(colon + 2, line.size());
  return id;
}

RecompileReason parse_reason(std::string_view entry) {
  RecompileReason reason;
  std::size_t start = 0;
  if (const auto id = reason_prefix(entry, start)) reason.failed_id = *id;
  entry.remove_prefix(start);
  const auto stack_at = entry.find(kUserStack);
  std::string_view head = entry.substr(0, stack_at);
  if (stack_at != std::string_view::npos) {
    // The frames start on the line after the header, which a cut-short entry may lack.
    const std::size_t frames = std::min(stack_at + kUserStack.size() + 1, entry.size());
    reason.user_stack = parse_traceback(entry.substr(frames));
  }
  reason.text = std::string(text::trim(head));
  // Dynamo pads the guard to a column and appends "  # <source line>  # <file:line>".
  const auto comment = reason.text.find("  # ");
  reason.guard = std::string(text::trim(std::string_view(reason.text).substr(0, comment)));
  return reason;
}

std::vector<RecompileReason> parse_plain(std::string_view text) {
  std::vector<std::string_view> entries;
  text::for_each_line(text, [&](std::string_view line, std::size_t) {
    std::size_t start = 0;
    if (reason_prefix(line, start) || entries.empty()) {
      entries.push_back(line);
    } else {
      // A continuation line (the user stack): widen the current entry over it.
      const auto begin = entries.back().data();
      entries.back() =
          std::string_view(begin, static_cast<std::size_t>(line.data() + line.size() - begin));
    }
  });
  std::vector<RecompileReason> reasons;
  for (const auto entry : entries) {
    if (!text::trim(entry).empty()) reasons.push_back(parse_reason(entry));
  }
  return reasons;
}

}  // namespace

std::vector<RecompileReason> parse_recompile_reasons(std::string_view text) {
  const auto trimmed = text::trim(text);
  if (text::starts_with(trimmed, "[")) {
    const auto list = nlohmann::json::parse(trimmed, nullptr, /*allow_exceptions=*/false);
    if (!list.is_discarded() && list.is_array()) {
      std::vector<RecompileReason> reasons;
      for (const auto& item : list) {
        if (item.is_string()) reasons.push_back(parse_reason(item.get_ref<const std::string&>()));
      }
      return reasons;
    }
  }
  return parse_plain(trimmed);
}

}  // namespace fxscope::trace
