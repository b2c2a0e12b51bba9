#include "fxscope/graph/argument_reader.h"

#include <cctype>
#include <utility>

#include "fxscope/core/text.h"
#include "fxscope/graph/python_text.h"

namespace fxscope::graph {

namespace {

// Nesting deeper than this is not FX output; it is kept as raw text instead of recursed into.
constexpr int kMaxArgumentDepth = 64;

bool encloses(std::string_view t, char open) {
  return t.size() >= 2 && t.front() == open && python_text::matching_close(t, 0) == t.size() - 1;
}

// The decoded text of a whole-string literal T ('...' or "..."), or nullopt if T is not one.
std::optional<std::string> string_literal(std::string_view t) {
  if (t.size() < 2 || (t.front() != '\'' && t.front() != '"') || t.back() != t.front()) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(t.size() - 2);
  for (std::size_t i = 1; i + 1 < t.size(); ++i) {
    char c = t[i];
    if (c == t.front()) return std::nullopt;  // the literal closed early: 'a' + 'b'
    if (c == '\\' && i + 2 < t.size()) {
      c = t[++i];
      if (c == 'n') {
        c = '\n';
      } else if (c == 't') {
        c = '\t';
      } else if (c != '\\' && c != '\'' && c != '"') {
        out += '\\';
      }
    }
    out += c;
  }
  return out;
}

// `cuda:0` in fragment kwargs: a device written bare.
bool is_bare_device(std::string_view t) {
  const std::size_t colon = t.find(':');
  return colon != std::string_view::npos && text::is_identifier(t.substr(0, colon)) &&
         text::parse_int(t.substr(colon + 1)).has_value();
}

// "dim = 2" / "dim=2": the keyword's length, or 0 when PART is positional.
std::size_t keyword_length(std::string_view part) {
  std::size_t i = 0;
  while (i < part.size() && (std::isalnum(static_cast<unsigned char>(part[i])) || part[i] == '_')) {
    ++i;
  }
  if (i == 0 || !text::is_identifier(part.substr(0, i))) return 0;
  std::size_t j = i;
  while (j < part.size() && part[j] == ' ') ++j;
  if (j >= part.size() || part[j] != '=' || (j + 1 < part.size() && part[j + 1] == '=')) return 0;
  return i;
}

}  // namespace

ArgumentReader::ArgumentReader(NodeNames names, Resolver resolve)
    : names_(names), resolve_(std::move(resolve)) {}

Argument ArgumentReader::read(std::string_view text) {
  return read_value(text, 0);
}

std::vector<std::string> ArgumentReader::take_problems() {
  return std::exchange(problems_, {});
}

std::vector<Argument> ArgumentReader::read_items(std::string_view inner, int depth) {
  std::vector<Argument> items;
  if (text::trim(inner).empty()) return items;
  std::vector<std::string_view> parts = text::split_top_level(inner, ",");
  if (parts.size() > 1 && text::trim(parts.back()).empty()) parts.pop_back();
  items.reserve(parts.size());
  for (const std::string_view part : parts) items.push_back(read_value(part, depth + 1));
  return items;
}

Argument ArgumentReader::read_value(std::string_view text, int depth) {
  const std::string_view t = text::trim(text);
  if (t.empty() || depth > kMaxArgumentDepth) {
    problems_.push_back(t.empty() ? "empty argument" : "argument nested too deeply");
    return Argument::raw(std::string(t));
  }
  if (t == "None") return Argument();
  if (t == "True") return Argument::boolean(true);
  if (t == "False") return Argument::boolean(false);
  if (auto s = string_literal(t)) return Argument::string(std::move(*s));
  if (encloses(t, '[')) return Argument::list(read_items(t.substr(1, t.size() - 2), depth));
  if (encloses(t, '{')) return read_dict_value(t, depth);
  if (encloses(t, '(')) {
    const std::string_view inner = t.substr(1, t.size() - 2);
    if (text::trim(inner).empty() ||
        python_text::find_top_level(inner, ",") != std::string_view::npos) {
      return Argument::tuple(read_items(inner, depth));
    }
    return read_value(inner, depth + 1);  // parenthesized value
  }
  const char c = t.front();
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || t == "inf" || t == "nan") {
    if (auto i = text::parse_int(t)) return Argument::integer(*i);
    if (auto d = text::parse_double(t)) return Argument::floating(*d);
  }
  const std::size_t paren = t.find('(');
  if (paren != std::string_view::npos && t.back() == ')' &&
      text::is_dotted_name(t.substr(0, paren)) &&
      python_text::matching_close(t, paren) == t.size() - 1) {
    const std::string_view head = t.substr(0, paren);
    if (head == "slice") {
      std::vector<Argument> items = read_items(t.substr(paren + 1, t.size() - paren - 2), depth);
      if (items.size() == 3) {
        return Argument::slice(std::move(items[0]), std::move(items[1]), std::move(items[2]));
      }
    } else if (head == "device" || head == "torch.device") {
      return Argument::symbol(std::string(t));
    }
    return Argument::raw(std::string(t));
  }
  return read_name(t);
}

Argument ArgumentReader::read_name(std::string_view t) {
  if (names_ == NodeNames::percent && t.front() == '%') {
    const std::string_view name = t.substr(1);
    if (auto id = resolve_(name)) return Argument::node(*id);
    problems_.push_back("unknown node %" + std::string(name));
    return Argument::raw(std::string(t));
  }
  if (text::is_identifier(t)) {
    // Fragments print strings bare (`rand`), so only readable code's names must be nodes.
    if (names_ == NodeNames::percent) return Argument::symbol(std::string(t));
    if (auto id = resolve_(t)) return Argument::node(*id);
    // Python's `...` in an index (x[(Ellipsis, None)]) is printed by name.
    if (t == "Ellipsis") return Argument::symbol(std::string(t));
    problems_.push_back("unknown name " + std::string(t));
    return Argument::symbol(std::string(t));
  }
  if (text::is_dotted_name(t) || is_bare_device(t)) return Argument::symbol(std::string(t));
  return Argument::raw(std::string(t));
}

void ArgumentReader::read_call(std::string_view text, std::vector<Argument>& args,
                               std::vector<KeywordArgument>& kwargs) {
  if (text::trim(text).empty()) return;
  std::vector<std::string_view>& parts = call_parts_;
  text::split_top_level(text, ",", parts);
  if (parts.size() > 1 && text::trim(parts.back()).empty()) parts.pop_back();
  for (std::string_view part : parts) {
    part = text::trim(part);
    const std::size_t key = keyword_length(part);
    if (key == 0) {
      args.push_back(read_value(part, 0));
      continue;
    }
    const std::size_t eq = part.find('=', key);
    kwargs.emplace_back(std::string(part.substr(0, key)), read_value(part.substr(eq + 1), 0));
  }
}

Argument ArgumentReader::read_dict_value(std::string_view t, int depth) {
  std::vector<Argument> key_values;
  for (const std::string_view part : text::split_top_level(t.substr(1, t.size() - 2), ",")) {
    if (text::trim(part).empty()) continue;
    const std::size_t colon = python_text::find_top_level(part, ": ");
    if (colon == std::string_view::npos) return Argument::raw(std::string(t));
    key_values.push_back(read_value(part.substr(0, colon), depth + 1));
    key_values.push_back(read_value(part.substr(colon + 2), depth + 1));
  }
  return Argument::dict(std::move(key_values));
}

std::vector<KeywordArgument> ArgumentReader::read_dict(std::string_view text) {
  std::vector<KeywordArgument> kwargs;
  const std::string_view t = text::trim(text);
  if (!encloses(t, '{')) {
    problems_.push_back("expected a {key: value} dict, found " + std::string(t));
    kwargs.emplace_back(std::string(), Argument::raw(std::string(t)));
    return kwargs;
  }
  const std::string_view inner = t.substr(1, t.size() - 2);
  if (text::trim(inner).empty()) return kwargs;
  for (const std::string_view part : text::split_top_level(inner, ",")) {
    if (text::trim(part).empty()) continue;
    const std::size_t colon = python_text::find_top_level(part, ": ");
    if (colon == std::string_view::npos) {
      problems_.push_back("expected key: value, found " + std::string(text::trim(part)));
      kwargs.emplace_back(std::string(), Argument::raw(std::string(text::trim(part))));
      continue;
    }
    std::string_view key = text::trim(part.substr(0, colon));
    if (auto quoted = string_literal(key)) {
      kwargs.emplace_back(std::move(*quoted), read_value(part.substr(colon + 2), 0));
    } else {
      kwargs.emplace_back(std::string(key), read_value(part.substr(colon + 2), 0));
    }
  }
  return kwargs;
}

}  // namespace fxscope::graph
