#include "fxscope/trace/graph_break.h"

#include <algorithm>

#include "fxscope/core/text.h"

namespace fxscope::trace {

bool GraphBreak::same_break(const GraphBreak& other) const {
  return line == other.line && file == other.file && message == other.message;
}

namespace {

constexpr std::string_view kHeader = "Graph break in user code at ";
constexpr std::string_view kReason = "Graph Break Reason: ";
constexpr std::string_view kTraceback = "User code traceback:";
constexpr std::string_view kExplanation = "Explanation: ";
constexpr std::string_view kHint = "Hint: ";
constexpr std::string_view kDeveloper = "Developer debug context: ";
constexpr std::string_view kDetails = "For more details about this graph break";

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  text::for_each_line(text, [&](std::string_view line, std::size_t) { lines.push_back(line); });
  return lines;
}

void parse_location(std::string_view line, GraphBreak& gb) {
  line.remove_prefix(kHeader.size());
  line = text::trim(line);
  // The path may hold ':' (Windows drives), the line number never does.
  const auto colon = line.rfind(':');
  const auto number =
      colon == std::string_view::npos ? std::nullopt : text::parse_int(line.substr(colon + 1));
  if (!number) {
    gb.file = std::string(line);
    return;
  }
  gb.file = std::string(line.substr(0, colon));
  gb.line = static_cast<int>(*number);
}

void parse_link(std::string_view line, GraphBreak& gb) {
  const auto url = line.find("http");
  if (url == std::string_view::npos) return;
  gb.link = std::string(text::trim(line.substr(url)));
  const auto slash = gb.link.rfind('/');
  std::string_view page = std::string_view(gb.link).substr(slash + 1);
  if (text::starts_with(page, "gb")) gb.gb_code = std::string(page.substr(0, page.find('.')));
}

// Dynamo's message: headline, "  Explanation:", "  Hint:" lines, "  Developer debug context:",
// and the link. A line that starts none of these continues the field before it.
void parse_message(const std::vector<std::string_view>& lines, GraphBreak& gb) {
  std::string* field = &gb.reason;
  for (const auto raw : lines) {
    const auto line = text::trim(raw);
    if (line.empty()) continue;
    if (gb.reason.empty()) {
      gb.reason = std::string(line);
    } else if (text::starts_with(line, kExplanation)) {
      gb.explanation = std::string(line.substr(kExplanation.size()));
      field = &gb.explanation;
    } else if (text::starts_with(line, kHint)) {
      gb.hints.emplace_back(line.substr(kHint.size()));
      field = &gb.hints.back();
    } else if (text::starts_with(line, kDeveloper)) {
      gb.developer_context = std::string(line.substr(kDeveloper.size()));
      field = &gb.developer_context;
    } else if (text::starts_with(line, kDetails)) {
      parse_link(line, gb);
    } else {
      *field += '\n';
      *field += line;
    }
  }
}

}  // namespace

GraphBreak parse_graph_break(std::string_view text) {
  GraphBreak gb;
  const auto lines = split_lines(text);
  std::size_t i = 0;
  if (i < lines.size() && text::starts_with(lines[i], kHeader)) parse_location(lines[i++], gb);

  // Everything up to "User code traceback:" is the reason. Its first paragraph is Dynamo's
  // context ("Encountered graph break when attempting to trace ...") when another follows.
  std::vector<std::string_view> reason;
  for (; i < lines.size() && !text::starts_with(lines[i], kTraceback); ++i) {
    reason.push_back(lines[i]);
  }
  if (!reason.empty() && text::starts_with(reason.front(), kReason)) {
    reason.front().remove_prefix(kReason.size());
  }
  const auto blank = std::find_if(reason.begin(), reason.end(),
                                  [](std::string_view l) { return text::trim(l).empty(); });
  if (blank != reason.end() && blank + 1 != reason.end() && blank - reason.begin() == 1) {
    gb.context = std::string(text::trim(reason.front()));
    reason.erase(reason.begin(), blank + 1);
  }
  while (!reason.empty() && text::trim(reason.back()).empty()) reason.pop_back();
  while (!reason.empty() && text::trim(reason.front()).empty()) reason.erase(reason.begin());
  for (const auto line : reason) {
    if (!gb.message.empty()) gb.message += '\n';
    gb.message += line;
  }
  parse_message(reason, gb);

  if (i + 1 < lines.size()) {
    const auto from = static_cast<std::size_t>(lines[i + 1].data() - text.data());
    gb.user_stack = parse_traceback(text.substr(from));
  }
  return gb;
}

}  // namespace fxscope::trace
