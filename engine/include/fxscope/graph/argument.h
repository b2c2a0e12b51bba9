#pragma once
// One positional or keyword argument of an FX node, kept as the value the text wrote: a node
// reference, a Python literal, a qualified symbol, a list/tuple/slice, or the raw text of anything
// the parsers do not model (never dropped).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fxscope::graph {

// Index of a node in its Graph's flat node vector.
using NodeId = std::uint32_t;

// A value of an FX argument; lists, tuples, slices and dicts nest further Arguments.
class Argument {
 public:
  enum class Kind : std::uint8_t {
    none,      // None
    boolean,   // True / False
    integer,   // 3, -1
    floating,  // 0.5, inf, -inf, nan, -3.4028234663852886e+38
    string,    // 'text' (decoded, without quotes)
    symbol,    // torch.float32, torch.contiguous_format, cuda:0, device(type='cuda', index=0)
    node,      // a reference to a node of the same graph
    list,      // [a, b]
    tuple,     // (a, b)
    slice,     // slice(start, stop, step): always three items
    dict,      // {'key': value}: items alternate key and value (a user's Triton kernel's kwargs)
    raw,       // any other text, as written
  };

  Argument() = default;  // None
  static Argument boolean(bool v);
  static Argument integer(std::int64_t v);
  static Argument floating(double v);
  static Argument string(std::string text);
  static Argument symbol(std::string text);
  static Argument node(NodeId id);
  static Argument list(std::vector<Argument> items);
  static Argument tuple(std::vector<Argument> items);
  static Argument slice(Argument start, Argument stop, Argument step);
  // KEY_VALUES alternates each key and its value.
  static Argument dict(std::vector<Argument> key_values);
  static Argument raw(std::string text);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::none; }
  bool is_node() const { return kind_ == Kind::node; }
  bool as_bool() const { return int_ != 0; }
  std::int64_t as_int() const { return int_; }
  double as_float() const { return float_; }
  NodeId as_node() const { return static_cast<NodeId>(int_); }
  // The text of a string, symbol or raw value.
  const std::string& text() const { return text_; }
  // The items of a list, tuple, slice or dict (keys and values alternating).
  const std::vector<Argument>& items() const { return items_; }

  // Calls FN(NodeId) for every node reference in this value, nested ones included.
  template <class Fn>
  void for_each_node(Fn&& fn) const {
    if (kind_ == Kind::node) fn(as_node());
    for (const Argument& item : items_) item.for_each_node(fn);
  }

  // Python-like text of the value ("%name" for nodes is up to the caller: ids print as %id).
  std::string to_string() const;

 private:
  Kind kind_ = Kind::none;
  std::int64_t int_ = 0;
  double float_ = 0.0;
  std::string text_;
  std::vector<Argument> items_;
};

// A keyword argument: name and value, in the order the text wrote them.
using KeywordArgument = std::pair<std::string, Argument>;

}  // namespace fxscope::graph
