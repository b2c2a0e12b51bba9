// One guard against one input. The wording follows torch/_dynamo/guards.py's
// get_guard_fail_reason_helper: a leaf guard with a reason of its own (TENSOR_MATCH,
// GLOBAL_STATE) gives that text; any other failing guard is reported by its code, and the
// whole reason goes through strip_local_scope (L['x'] -> x; G['x'] stays).

#include <array>
#include <utility>

#include "fxscope/guards/dynamo_text.h"
#include "guard_checks.h"

namespace fxscope::guards::detail {

namespace {

// Builders that install at most one check of their kind on a source, its value printed in it;
// "DictGuardManager" is the dict length the tree parser reads off a DictGuardManager.
constexpr std::array<std::string_view, 12> kValuePrintingTags{
    "ID_MATCH",       "TYPE_MATCH",
    "LENGTH_CHECK",   "DICT_LENGTH",
    "DICT_KEYS",      "DICT_KEYS_MATCH",
    "DICT_VERSION",   "GLOBAL_STATE",
    "DEFAULT_DEVICE", "TORCH_FUNCTION_MODE_STACK",
    "LAMBDA_GUARD",   "DictGuardManager"};

bool is_tensor_type(std::string_view type_name) {
  return type_name.find("Tensor") != std::string_view::npos ||
         type_name.find("Parameter") != std::string_view::npos;
}

}  // namespace

std::optional<ObservedKey> observed_key(const Guard& guard) {
  bool printing = false;
  for (const auto tag : kValuePrintingTags) printing = printing || tag == guard.tag;
  if (!printing) return std::nullopt;
  if (guard.tag == "LAMBDA_GUARD") {
    // Only the ambient lambdas (saved-tensor hooks) are one per root; shape lambdas are
    // relations between many values.
    if (guard.kind != GuardKind::kAmbient) return std::nullopt;
    return ObservedKey{"LAMBDA_GUARD " + guard.code.substr(0, guard.code.find(' ')), guard.source};
  }
  return ObservedKey{guard.tag, guard.source};
}

std::string guard_location(const Guard& guard) {
  return guard.line > 0 ? "guard tree line " + std::to_string(guard.line) : guard.tag;
}

CheckResult failed_with_code(const Guard& guard) {
  return {Outcome::kFail, strip_local_scope(guard.code), {}};
}

GuardChecker::GuardChecker(const GuardSet& set, const ProposedInput& input)
    : set_(set), input_(input), results_(set.guards.size()) {}

const CheckResult& GuardChecker::check(std::size_t guard) {
  if (!results_[guard]) results_[guard] = run(set_.guards[guard]);
  return *results_[guard];
}

CheckResult GuardChecker::run(const Guard& guard) {
  switch (guard.kind) {
    case GuardKind::kTensorMatch:
      return check_tensor_match(*guard.tensor, input_.find_tensor(guard.source),
                                input_.find_constant(guard.source));
    case GuardKind::kConstant:
      return check_constant(guard);
    case GuardKind::kType:
      return check_type(guard);
    case GuardKind::kLength:
      return check_length(guard);
    case GuardKind::kShape:
      return check_shape(guard);
    case GuardKind::kOpaque:
      return {Outcome::kAssumed,
              {},
              {{guard_location(guard), "not understood, assumed to hold: " + guard.tag +
                                           (guard.code.empty() ? "" : ": " + guard.code)}}};
    case GuardKind::kId:
    case GuardKind::kAmbient:
    case GuardKind::kStructure:
      return check_observed(guard);
  }
  return {};
}

// A check whose value only the call's own guards print: the same text holds, another fails.
CheckResult GuardChecker::check_observed(const Guard& guard) {
  const auto key = observed_key(guard);
  const ObservedCheck* seen = key ? input_.find_observed(key->tag, key->source) : nullptr;
  if (!seen) return {Outcome::kAssumed, {}, {}};
  if (seen->code == guard.code) return {Outcome::kPass, {}, {}};
  if (guard.tag == "GLOBAL_STATE") {
    const auto change = global_state_change(guard.code, seen->code);
    if (!change) {
      return {Outcome::kAssumed,
              {},
              {{guard_location(guard), "global state not readable, assumed to hold"}}};
    }
    if (!change->changed) return {Outcome::kPass, {}, {}};
    return {Outcome::kFail, "GLOBAL_STATE changed: " + change->names, {}};
  }
  return failed_with_code(guard);
}

CheckResult GuardChecker::check_constant(const Guard& guard) {
  if (input_.find_tensor(guard.source)) return failed_with_code(guard);
  const Value* given = input_.find_constant(guard.source);
  if (!given) return {Outcome::kKept, {}, {}};
  if (!python_equals(*given, *guard.value)) return failed_with_code(guard);
  return {Outcome::kPass, {}, {}};
}

CheckResult GuardChecker::check_type(const Guard& guard) {
  if (input_.find_tensor(guard.source)) {
    if (!guard.type_name.empty() && !is_tensor_type(guard.type_name)) {
      return failed_with_code(guard);
    }
    return check_observed(guard);
  }
  const Value* given = input_.find_constant(guard.source);
  if (!given || guard.type_name.empty()) {
    auto observed = check_observed(guard);
    if (observed.outcome == Outcome::kAssumed && !given) observed.outcome = Outcome::kKept;
    return observed;
  }
  return python_type_name(*given) == guard.type_name ? CheckResult{Outcome::kPass, {}, {}}
                                                     : failed_with_code(guard);
}

CheckResult GuardChecker::check_length(const Guard& guard) {
  const Value* given = input_.find_constant(guard.source);
  if (!given) {
    auto observed = check_observed(guard);
    if (observed.outcome == Outcome::kAssumed) observed.outcome = Outcome::kKept;
    return observed;
  }
  std::int64_t length = 0;
  if (given->kind == Value::Kind::kTuple) {
    length = static_cast<std::int64_t>(given->items.size());
  } else if (given->kind == Value::Kind::kString) {
    length = static_cast<std::int64_t>(given->string.size());
  } else {
    return {Outcome::kAssumed, {}, {}};
  }
  return length == guard.value->integer ? CheckResult{Outcome::kPass, {}, {}}
                                        : failed_with_code(guard);
}

CheckResult GuardChecker::check_shape(const Guard& guard) {
  const auto result = evaluate(*guard.expr, [this](std::string_view s) { return resolve(s, 0); });
  if (result.state == ExprResult::State::kUnsupported) {
    return {Outcome::kAssumed,
            {},
            {{guard_location(guard), result.why + ", assumed to hold: " + guard.code}}};
  }
  if (result.state == ExprResult::State::kUnknown) return {Outcome::kAssumed, {}, {}};
  return truthy(result.value) ? CheckResult{Outcome::kPass, {}, {}} : failed_with_code(guard);
}

// The value of SOURCE under this input: given, else what the guards expect (static sizes,
// strides and constants); nullopt where neither says (a dynamic dim nobody gave).
std::optional<Value> GuardChecker::resolve(std::string_view source, int depth) const {
  if (depth > 4) return std::nullopt;
  for (const auto& [symbol, symbol_source] : set_.symbols) {
    if (symbol == source) return resolve(symbol_source, depth + 1);
  }
  if (source.substr(0, 4) == "len(" && source.back() == ')') {
    const Value* v = input_.find_constant(source.substr(4, source.size() - 5));
    if (v && v->kind == Value::Kind::kTuple) {
      return Value::of_int(static_cast<std::int64_t>(v->items.size()));
    }
    return std::nullopt;
  }
  if (const auto access = parse_tensor_access(source)) {
    return resolve_dim(access->base, access->kind == TensorAccess::Kind::kSize, access->index);
  }
  if (const Value* v = input_.find_constant(source)) return *v;
  if (input_.find_tensor(source)) return std::nullopt;
  for (const auto& g : set_.guards) {
    if (g.kind == GuardKind::kConstant && g.value && g.source == source) return *g.value;
  }
  return std::nullopt;
}

std::optional<Value> GuardChecker::resolve_dim(std::string_view base, bool size,
                                               std::size_t index) const {
  const TensorMatch* expected = nullptr;
  for (const auto& g : set_.guards) {
    if (g.kind == GuardKind::kTensorMatch && g.tensor && g.tensor->source == base) {
      expected = &*g.tensor;
    }
  }
  const TensorInput* given = input_.find_tensor(base);
  Dims dims;
  if (given && expected) {
    const auto t = effective_tensor(*given, *expected);
    dims = size ? t.sizes : t.strides;
  } else if (given) {
    const Dims sizes = given->sizes.value_or(Dims{});
    dims = size ? sizes : given->strides.value_or(contiguous_strides(sizes));
  } else if (expected) {
    dims = size ? expected->sizes : expected->strides;
  }
  if (index >= dims.size() || !dims[index]) return std::nullopt;
  return Value::of_int(*dims[index]);
}

}  // namespace fxscope::guards::detail
