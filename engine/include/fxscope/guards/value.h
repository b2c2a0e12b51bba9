#pragma once
// Python constants as guards compare them (EQUALS_MATCH, TRUE_MATCH, NONE_MATCH, LENGTH_CHECK)
// and as a what-if input gives them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fxscope::guards {

// One Python value: None, bool, int, float, str, or a tuple of these.
struct Value {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kTuple };
  Kind kind = Kind::kNone;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0.0;
  std::string string;
  std::vector<Value> items;

  static Value none() { return {}; }
  static Value of_bool(bool b);
  static Value of_int(std::int64_t i);
  static Value of_float(double f);
  static Value of_string(std::string s);
};

// Parses a Python literal as repr() writes it: None, True, 16, -1.5, 1e-05, 'relu', (1, 1).
std::optional<Value> parse_python_value(std::string_view text);
// Like parse_python_value, but a bare word that is no literal is a string: relu -> 'relu'.
Value parse_user_value(std::string_view text);
// repr() of the value: 'relu', 124.3185043334961, (768,).
std::string python_repr(const Value& value);
// Python's name of the value's type: "str", "int", "NoneType".
std::string_view python_type_name(const Value& value);
// `a == b` as EQUALS_MATCH decides it: the types must agree first (1 is no match for True).
bool python_equals(const Value& a, const Value& b);
bool is_number(const Value& value);
double as_double(const Value& value);

}  // namespace fxscope::guards
