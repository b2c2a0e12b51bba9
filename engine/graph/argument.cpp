#include "fxscope/graph/argument.h"

#include <charconv>
#include <cmath>

namespace fxscope::graph {

Argument Argument::boolean(bool v) {
  Argument a;
  a.kind_ = Kind::boolean;
  a.int_ = v ? 1 : 0;
  return a;
}

Argument Argument::integer(std::int64_t v) {
  Argument a;
  a.kind_ = Kind::integer;
  a.int_ = v;
  return a;
}

Argument Argument::floating(double v) {
  Argument a;
  a.kind_ = Kind::floating;
  a.float_ = v;
  return a;
}

Argument Argument::string(std::string text) {
  Argument a;
  a.kind_ = Kind::string;
  a.text_ = std::move(text);
  return a;
}

Argument Argument::symbol(std::string text) {
  Argument a;
  a.kind_ = Kind::symbol;
  a.text_ = std::move(text);
  return a;
}

Argument Argument::node(NodeId id) {
  Argument a;
  a.kind_ = Kind::node;
  a.int_ = id;
  return a;
}

Argument Argument::list(std::vector<Argument> items) {
  Argument a;
  a.kind_ = Kind::list;
  a.items_ = std::move(items);
  return a;
}

Argument Argument::tuple(std::vector<Argument> items) {
  Argument a;
  a.kind_ = Kind::tuple;
  a.items_ = std::move(items);
  return a;
}

Argument Argument::slice(Argument start, Argument stop, Argument step) {
  Argument a;
  a.kind_ = Kind::slice;
  a.items_.reserve(3);
  a.items_.push_back(std::move(start));
  a.items_.push_back(std::move(stop));
  a.items_.push_back(std::move(step));
  return a;
}

Argument Argument::dict(std::vector<Argument> key_values) {
  Argument a;
  a.kind_ = Kind::dict;
  a.items_ = std::move(key_values);
  return a;
}

Argument Argument::raw(std::string text) {
  Argument a;
  a.kind_ = Kind::raw;
  a.text_ = std::move(text);
  return a;
}

namespace {

// Python's repr of a float: shortest round-trip digits, "1.0" rather than "1".
std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string join(const std::vector<Argument>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i].to_string();
  }
  return out;
}

}  // namespace

std::string Argument::to_string() const {
  switch (kind_) {
    case Kind::none:
      return "None";
    case Kind::boolean:
      return int_ != 0 ? "True" : "False";
    case Kind::integer:
      return std::to_string(int_);
    case Kind::floating:
      return float_repr(float_);
    case Kind::string:
      return quote(text_);
    case Kind::symbol:
    case Kind::raw:
      return text_;
    case Kind::node:
      return "%" + std::to_string(int_);
    case Kind::list:
      return "[" + join(items_) + "]";
    case Kind::tuple:
      return items_.size() == 1 ? "(" + join(items_) + ",)" : "(" + join(items_) + ")";
    case Kind::slice:
      return "slice(" + join(items_) + ")";
    case Kind::dict: {
      std::string out = "{";
      for (std::size_t i = 0; i + 1 < items_.size(); i += 2) {
        if (i > 0) out += ", ";
        out += items_[i].to_string() + ": " + items_[i + 1].to_string();
      }
      return out + "}";
    }
  }
  return text_;
}

}  // namespace fxscope::graph
