#include "fxscope/trace/json_scan.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>

#include "fxscope/core/text.h"

namespace fxscope::trace {

bool is_envelope_meta_key(std::string_view key) {
  static constexpr std::array<std::string_view, 6> kMeta{
      "frame_id", "frame_compile_id", "attempt", "has_payload", "rank", "compiled_autograd_id"};
  for (const auto meta : kMeta) {
    if (key == meta) return true;
  }
  return false;
}

namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void skip_ws() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }
  bool eat(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++i_;
    return true;
  }

  // At an opening quote: moves past the closing one and returns the raw contents.
  // Most of an envelope's bytes are inside strings (stacks, code): memchr finds each candidate
  // quote; the quote is the closing one when an even run of backslashes precedes it.
  std::optional<std::string_view> string() {
    const std::size_t begin = ++i_;
    while (i_ < s_.size()) {
      const void* hit = std::memchr(s_.data() + i_, '"', s_.size() - i_);
      if (hit == nullptr) break;
      const auto quote = static_cast<std::size_t>(static_cast<const char*>(hit) - s_.data());
      std::size_t run = quote;
      while (run > begin && s_[run - 1] == '\\') --run;
      i_ = quote + 1;
      if ((quote - run) % 2 == 0) return s_.substr(begin, quote - begin);
    }
    i_ = s_.size();
    return std::nullopt;
  }

  std::size_t pos() const { return i_; }

  bool value() {
    skip_ws();
    const char c = peek();
    if (c == '"') return string().has_value();
    if (c == '{' || c == '[') return container();
    const std::size_t begin = i_;
    while (!at_end()) {
      const char d = s_[i_];
      if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\t' || d == '\r') break;
      ++i_;
    }
    return i_ > begin;
  }

 private:
  // Skips a nested object or array, checking that brackets pair up.
  bool container() {
    std::array<char, 64> closers{};  // envelopes nest a few levels; deeper is not a record
    std::size_t depth = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        if (!string()) return false;
        continue;
      }
      if (c == '{' || c == '[') {
        if (depth == closers.size()) return false;
        closers[depth++] = c == '{' ? '}' : ']';
      } else if (c == '}' || c == ']') {
        if (depth == 0 || closers[depth - 1] != c) return false;
        if (--depth == 0) {
          ++i_;
          return true;
        }
      }
      ++i_;
    }
    return false;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

bool for_each_member(std::string_view object,
                     const std::function<bool(std::string_view, std::string_view)>& fn) {
  Cursor cur(object);
  if (!cur.eat('{')) return false;
  bool wanted = true;
  if (!cur.eat('}')) {
    do {
      cur.skip_ws();
      if (cur.peek() != '"') return false;
      const auto key = cur.string();
      if (!key || !cur.eat(':')) return false;
      cur.skip_ws();
      const std::size_t begin = cur.pos();
      if (!cur.value()) return false;
      if (wanted) wanted = fn(*key, object.substr(begin, cur.pos() - begin));
    } while (cur.eat(','));
    if (!cur.eat('}')) return false;
  }
  cur.skip_ws();
  return cur.at_end();
}

std::optional<EnvelopeHead> scan_envelope(std::string_view json) {
  EnvelopeHead head;
  const auto number = [](std::string_view v) {
    const auto n = text::parse_int(v);
    return n && *n >= 0 && *n < 1'000'000'000 ? static_cast<int>(*n) : -1;
  };
  const bool sound = for_each_member(json, [&](std::string_view key, std::string_view value) {
    if (key == "frame_id") {
      head.id.frame_id = number(value);
    } else if (key == "frame_compile_id") {
      head.id.frame_compile_id = number(value);
    } else if (key == "attempt") {
      head.id.attempt = std::max(0, number(value));
    } else if (key == "compiled_autograd_id") {
      head.id.compiled_autograd_id = number(value);
    } else if (head.kind.empty() && !is_envelope_meta_key(key)) {
      head.kind = key;
      head.body = value;
    }
    return true;
  });
  if (!sound) return std::nullopt;
  return head;
}

}  // namespace fxscope::trace
