#include "fxscope/trace/log_scanner.h"

#include <cstring>

namespace fxscope::trace {

std::string_view envelope_json(std::string_view line) {
  // The glog prefix ends at the first "] " (a rank prefix "[rank0]:" may precede it, so the
  // search is for "] {" rather than for a fixed layout); it is short, so look only so far.
  constexpr std::size_t kMaxPrefix = 512;
  const std::size_t at = line.substr(0, kMaxPrefix).find("] {");
  if (at == std::string_view::npos) return {};
  std::string_view json = line.substr(at + 2);
  if (!json.empty() && json.back() == '\r') json.remove_suffix(1);
  return json;
}

void LogScanner::extend(std::string_view text, bool whole) {
  text_ = text;
  whole_ = whole;
  if (whole) {
    end_ = text.size();
    return;
  }
  const void* nl = ::memrchr(text.data() + pos_, '\n', text.size() - pos_);
  if (nl != nullptr)
    end_ = static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1;
}

std::string_view LogScanner::next_line() {
  const char* begin = text_.data() + pos_;
  const std::size_t left = end_ - pos_;
  const void* nl = std::memchr(begin, '\n', left);
  const std::size_t len =
      nl == nullptr ? left : static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
  pos_ += nl == nullptr ? len : len + 1;
  ++line_;
  return {begin, len};
}

bool LogScanner::payload_continues() const {
  if (pos_ >= end_) return false;
  if (text_[pos_] == '\t') return true;
  // Some writers drop the TAB of an empty payload line (torch.export's printed program in
  // PyTorch 2.6): a blank line with a TAB line right after it is still the payload.
  std::size_t p = pos_;
  if (text_[p] == '\r') ++p;
  return p + 1 < end_ && text_[p] == '\n' && text_[p + 1] == '\t';
}

bool LogScanner::next(RawRecord& record) {
  while (pos_ < end_) {
    const std::size_t start = pos_;
    const std::size_t start_line = line_;
    const std::string_view line = next_line();
    if (line.empty() || line == "\r") continue;
    record = RawRecord{};
    record.line = line_;
    record.whole = line;
    const bool orphan = line.front() == '\t';
    std::size_t payload_begin = start;
    std::size_t payload_end = start + line.size();
    std::size_t count = 0;
    if (orphan) {
      record.payload.first_line = line_;
      count = 1;
    } else {
      record.json = envelope_json(line);
    }
    while (payload_continues()) {
      const std::size_t at = pos_;
      const std::string_view payload_line = next_line();
      if (count == 0) {
        payload_begin = at;
        record.payload.first_line = line_;
      }
      payload_end = at + payload_line.size();
      ++count;
    }
    if (!whole_ && pos_ == end_) {
      // The next line, not there yet, may be one more of this record's TAB lines.
      pos_ = start;
      line_ = start_line;
      return false;
    }
    if (count > 0) {
      record.payload.raw = text_.substr(payload_begin, payload_end - payload_begin);
      record.payload.line_count = count;
      if (!orphan) payload_lines_ += count;
    }
    return true;
  }
  return false;
}

}  // namespace fxscope::trace
