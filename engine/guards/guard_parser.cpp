#include "fxscope/guards/guard_parser.h"

#include <array>
#include <string>
#include <utility>

#include "fxscope/core/text.h"
#include "fxscope/guards/dynamo_text.h"

namespace fxscope::guards {

namespace {

// Guards on the process rather than on the frame's values; no what-if input changes them.
constexpr std::array<std::string_view, 12> kAmbientTags{"GLOBAL_STATE",
                                                        "DEFAULT_DEVICE",
                                                        "TORCH_FUNCTION_MODE_STACK",
                                                        "GRAD_MODE",
                                                        "DETERMINISTIC_ALGORITHMS",
                                                        "TORCH_FUNCTION_STATE",
                                                        "BACKEND_MATCH",
                                                        "DUAL_LEVEL",
                                                        "FUNCTORCH_STACK_MATCH",
                                                        "SHAPE_ENV",
                                                        "AUTOGRAD_SAVED_TENSORS_HOOKS",
                                                        "HOOKS_MATCH"};

// Guards on object layout (attributes, dict keys, aliasing, weakrefs) that an input of
// shapes, dtypes and constants does not describe.
constexpr std::array<std::string_view, 14> kStructureTags{
    "NO_HASATTR",          "HASATTR",         "DICT_CONTAINS",  "NO_TENSOR_ALIASING",
    "DICT_VERSION",        "DICT_KEYS_MATCH", "DICT_KEYS",      "WEAKREF_ALIVE",
    "MAPPING_KEYS_CHECK",  "SET_CONTAINS",    "DATA_PTR_MATCH", "OBJECT_ALIASING",
    "STORAGE_OVERLAPPING", "NOT_NONE_MATCH"};

template <std::size_t N>
bool one_of(std::string_view tag, const std::array<std::string_view, N>& tags) {
  for (const auto t : tags) {
    if (t == tag) return true;
  }
  return false;
}

// "SRC == VALUE" (also "SRC is None") split at the top-level operator.
std::optional<std::pair<std::string_view, std::string_view>> split_relation(std::string_view code,
                                                                            std::string_view op) {
  const auto parts = text::split_top_level(code, op);
  if (parts.size() != 2) return std::nullopt;
  return std::pair{text::trim(parts[0]), text::trim(parts[1])};
}

// The first argument of "fn(SRC, ...)", and the "type=<class 'T'>" tail when present.
std::string first_argument(std::string_view code) {
  const auto open = code.find('(');
  if (open == std::string_view::npos) return {};
  const auto close = code.find("), type=");
  const auto inner =
      code.substr(open + 1, (close == std::string_view::npos ? code.rfind(')') : close) - open - 1);
  const auto args = text::split_top_level(inner, ",");
  return args.empty() ? std::string() : std::string(text::trim(args[0]));
}

std::string class_name(std::string_view code) {
  const auto at = code.find("type=<class '");
  if (at == std::string_view::npos) return {};
  const auto start = at + 13;
  const auto end = code.find('\'', start);
  return end == std::string_view::npos ? std::string()
                                       : std::string(code.substr(start, end - start));
}

void make_opaque(Guard& guard, std::string why, Warnings& warnings, std::string_view where) {
  guard.kind = GuardKind::kOpaque;
  warnings.push_back({std::string(where), "guard not understood (" + why + "), assumed to hold: " +
                                              guard.tag + ": " + guard.code});
}

void parse_constant(Guard& guard, Warnings& warnings, std::string_view where) {
  const bool is_none = guard.tag == "NONE_MATCH";
  const auto rel = split_relation(guard.code, is_none ? " is " : " == ");
  if (!rel) return make_opaque(guard, "no single comparison", warnings, where);
  auto value = parse_python_value(rel->second);
  if (!value) return make_opaque(guard, "value is no Python literal", warnings, where);
  guard.kind = GuardKind::kConstant;
  guard.source = std::string(rel->first);
  guard.value = std::move(*value);
}

void parse_length(Guard& guard, Warnings& warnings, std::string_view where) {
  const std::string_view code = guard.code;
  if (text::starts_with(code, "not ")) {
    guard.kind = GuardKind::kLength;
    guard.source = std::string(text::trim(code.substr(4)));
    guard.value = Value::of_int(0);
    return;
  }
  const auto rel = split_relation(code, " == ");
  const auto length = rel ? text::parse_int(rel->second) : std::nullopt;
  if (!rel || !length || !text::starts_with(rel->first, "len(") ||
      !text::ends_with(rel->first, ")")) {
    return make_opaque(guard, "expected len(X) == n", warnings, where);
  }
  guard.kind = GuardKind::kLength;
  guard.source = std::string(rel->first.substr(4, rel->first.size() - 5));
  guard.value = Value::of_int(*length);
}

}  // namespace

Guard parse_guard(std::string_view tag, std::string_view text_in, Warnings& warnings,
                  std::string_view where) {
  Guard guard;
  guard.tag = std::string(tag);
  const auto [code, comment] = split_comment(text_in);
  guard.code = std::string(code);
  guard.comment = std::string(comment);
  if (tag == "TENSOR_MATCH") {
    auto match = parse_tensor_match(code);
    if (!match) {
      make_opaque(guard, match.error().message, warnings, where);
      return guard;
    }
    guard.kind = GuardKind::kTensorMatch;
    guard.source = match->source;
    guard.tensor = std::move(match).value();
  } else if (tag == "EQUALS_MATCH" || tag == "TRUE_MATCH" || tag == "FALSE_MATCH" ||
             tag == "NONE_MATCH") {
    parse_constant(guard, warnings, where);
  } else if (tag == "TYPE_MATCH" || tag == "ID_MATCH") {
    guard.kind = tag == "TYPE_MATCH" ? GuardKind::kType : GuardKind::kId;
    guard.source = first_argument(code);
    // The check's text, ", type=<...>" included, is also its failure reason: Dynamo 2.11
    // reports "___check_obj_id(act, 1396...), type=<built-in method tanh ...>".
    guard.type_name = class_name(code);
  } else if (tag == "LENGTH_CHECK" || tag == "DICT_LENGTH") {
    parse_length(guard, warnings, where);
  } else if (one_of(tag, kAmbientTags) ||
             guard.code.find("top_saved_tensors_hooks") != std::string::npos) {
    guard.kind = GuardKind::kAmbient;
  } else if (one_of(tag, kStructureTags)) {
    guard.kind = GuardKind::kStructure;
    guard.source = first_argument(code);
  } else if (tag == "LAMBDA_GUARD" || tag == "guard_added_fast") {
    auto expr = parse_expression(code);
    if (!expr) {
      make_opaque(guard, expr.error().message, warnings, where);
      return guard;
    }
    guard.kind = GuardKind::kShape;
    guard.expr = std::move(expr).value();
  } else {
    make_opaque(guard, "unknown guard kind", warnings, where);
  }
  return guard;
}

}  // namespace fxscope::guards
