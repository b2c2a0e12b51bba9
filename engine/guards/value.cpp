#include "fxscope/guards/value.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::guards {

Value Value::of_bool(bool b) {
  Value v;
  v.kind = Kind::kBool;
  v.boolean = b;
  return v;
}

Value Value::of_int(std::int64_t i) {
  Value v;
  v.kind = Kind::kInt;
  v.integer = i;
  return v;
}

Value Value::of_float(double f) {
  Value v;
  v.kind = Kind::kFloat;
  v.real = f;
  return v;
}

Value Value::of_string(std::string s) {
  Value v;
  v.kind = Kind::kString;
  v.string = std::move(s);
  return v;
}

namespace {

std::optional<std::string> parse_quoted(std::string_view s) {
  if (s.size() < 2 || (s.front() != '\'' && s.front() != '"') || s.back() != s.front()) {
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    char c = s[i];
    if (c == s.front()) return std::nullopt;  // an unescaped quote: two strings, not one
    if (c == '\\' && i + 2 < s.size()) {
      const char e = s[++i];
      c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    out.push_back(c);
  }
  return out;
}

std::optional<Value> parse_tuple(std::string_view s) {
  const char close = s.front() == '(' ? ')' : ']';
  if (s.back() != close) return std::nullopt;
  Value v;
  v.kind = Value::Kind::kTuple;
  const auto inner = text::trim(s.substr(1, s.size() - 2));
  if (inner.empty()) return v;
  for (const auto part : text::split_top_level(inner, ",")) {
    const auto item = text::trim(part);
    if (item.empty()) continue;  // the trailing comma of (768,)
    auto parsed = parse_python_value(item);
    if (!parsed) return std::nullopt;
    v.items.push_back(std::move(*parsed));
  }
  return v;
}

bool looks_like_float(std::string_view s) {
  return s.find_first_of(".eE") != std::string_view::npos || s == "inf" || s == "-inf" ||
         s == "nan";
}

}  // namespace

std::optional<Value> parse_python_value(std::string_view text_in) {
  const auto s = text::trim(text_in);
  if (s.empty()) return std::nullopt;
  if (s == "None") return Value::none();
  if (s == "True") return Value::of_bool(true);
  if (s == "False") return Value::of_bool(false);
  if (s.front() == '\'' || s.front() == '"') {
    auto str = parse_quoted(s);
    if (!str) return std::nullopt;
    return Value::of_string(std::move(*str));
  }
  if (s.front() == '(' || s.front() == '[') return parse_tuple(s);
  if (!looks_like_float(s)) {
    if (const auto i = text::parse_int(s)) return Value::of_int(*i);
    return std::nullopt;
  }
  if (s == "inf") return Value::of_float(HUGE_VAL);
  if (s == "-inf") return Value::of_float(-HUGE_VAL);
  if (s == "nan") return Value::of_float(std::nan(""));
  if (const auto f = text::parse_double(s)) return Value::of_float(*f);
  return std::nullopt;
}

Value parse_user_value(std::string_view text_in) {
  if (auto v = parse_python_value(text_in)) return std::move(*v);
  return Value::of_string(std::string(text::trim(text_in)));
}

std::string python_repr(const Value& value) {
  switch (value.kind) {
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kBool:
      return value.boolean ? "True" : "False";
    case Value::Kind::kInt:
      return std::to_string(value.integer);
    case Value::Kind::kFloat: {
      // Python's repr is the shortest text that reads back to the same double.
      char buf[64];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, value.real);
        if (std::strtod(buf, nullptr) == value.real) break;
      }
      std::string out = buf;
      if (out.find_first_of(".eni") == std::string::npos) out += ".0";
      return out;
    }
    case Value::Kind::kString:
      return "'" + value.string + "'";
    case Value::Kind::kTuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i > 0) out += ", ";
        out += python_repr(value.items[i]);
      }
      return out + (value.items.size() == 1 ? ",)" : ")");
    }
  }
  return "None";
}

std::string_view python_type_name(const Value& value) {
  switch (value.kind) {
    case Value::Kind::kNone:
      return "NoneType";
    case Value::Kind::kBool:
      return "bool";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kFloat:
      return "float";
    case Value::Kind::kString:
      return "str";
    case Value::Kind::kTuple:
      return "tuple";
  }
  return "NoneType";
}

bool is_number(const Value& value) {
  return value.kind == Value::Kind::kInt || value.kind == Value::Kind::kFloat ||
         value.kind == Value::Kind::kBool;
}

double as_double(const Value& value) {
  switch (value.kind) {
    case Value::Kind::kInt:
      return static_cast<double>(value.integer);
    case Value::Kind::kFloat:
      return value.real;
    case Value::Kind::kBool:
      return value.boolean ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

bool python_equals(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kBool:
      return a.boolean == b.boolean;
    case Value::Kind::kInt:
      return a.integer == b.integer;
    case Value::Kind::kFloat:
      return a.real == b.real;
    case Value::Kind::kString:
      return a.string == b.string;
    case Value::Kind::kTuple:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!python_equals(a.items[i], b.items[i])) return false;
      }
      return true;
  }
  return false;
}

}  // namespace fxscope::guards
