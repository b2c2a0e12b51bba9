#include "fxscope/guards/guard_evaluator.h"

#include <cctype>
#include <string>
#include <utility>

#include "fxscope/guards/dynamo_text.h"

namespace fxscope::guards {

namespace {

enum class Outcome { kPass, kFail, kKept, kAssumed };

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Dynamo's tensor reasons start "tensor 'L['x']' " and lose the L[...] in strip_local_scope.
std::string tensor_reason(const std::string& source, const std::string& detail) {
  return strip_local_scope("tensor '" + source + "' " + detail);
}

// What a given tensor looks like once the fields the user left out take the guard's values.
struct EffectiveTensor {
  Dims sizes;
  Dims strides;
  Dtype dtype;
  Device device;
  bool requires_grad = false;
};

EffectiveTensor effective(const TensorInput& given, const TensorMatch& expected) {
  EffectiveTensor t;
  t.sizes = given.sizes ? *given.sizes : expected.sizes;
  t.strides = given.strides ? *given.strides
              : given.sizes ? contiguous_strides(*given.sizes)
                            : expected.strides;
  t.dtype = given.dtype ? *given.dtype : expected.dtype;
  const std::string expected_type = expected.backend.empty() || expected.backend == "CUDA"
                                        ? std::string("cuda")
                                        : std::string(expected.backend);
  t.device = given.device ? *given.device : Device{expected_type, expected.device_index};
  t.requires_grad = given.requires_grad ? *given.requires_grad : expected.requires_grad;
  return t;
}

class Evaluation {
 public:
  Evaluation(const GuardSet& set, const ProposedInput& input) : set_(set), input_(input) {
    for (const auto& g : set.guards) {
      if (g.kind == GuardKind::kTensorMatch && g.tensor) expected_tensors_.push_back(&*g.tensor);
      if (g.kind == GuardKind::kConstant && g.value) expected_constants_.push_back(&g);
    }
  }

  GuardEvaluation run() {
    GuardEvaluation result;
    for (std::size_t i = 0; i < set_.guards.size(); ++i) {
      const Guard& guard = set_.guards[i];
      std::string reason;
      const Outcome outcome = check(guard, reason, result.gaps);
      if (outcome == Outcome::kFail) {
        result.failed = i;
        result.reason = std::move(reason);
        return result;
      }
      if (outcome == Outcome::kPass) ++result.checked;
      if (outcome == Outcome::kKept) ++result.kept;
      if (outcome == Outcome::kAssumed) ++result.assumed;
    }
    result.reused = true;
    return result;
  }

 private:
  Outcome check(const Guard& guard, std::string& reason, Warnings& gaps) {
    switch (guard.kind) {
      case GuardKind::kTensorMatch:
        return check_tensor(*guard.tensor, guard, reason);
      case GuardKind::kConstant:
        return check_constant(guard, reason);
      case GuardKind::kType:
        return check_type(guard, reason);
      case GuardKind::kLength:
        return check_length(guard, reason);
      case GuardKind::kShape:
        return check_shape(guard, reason, gaps);
      case GuardKind::kOpaque:
        gaps.push_back({where(guard), "not understood, assumed to hold: " + guard.tag +
                                          (guard.code.empty() ? "" : ": " + guard.code)});
        return Outcome::kAssumed;
      case GuardKind::kId:
      case GuardKind::kAmbient:
      case GuardKind::kStructure:
        return Outcome::kAssumed;
    }
    return Outcome::kAssumed;
  }

  static std::string where(const Guard& guard) {
    return guard.line > 0 ? "guard tree line " + std::to_string(guard.line) : guard.tag;
  }

  static Outcome fail_with_code(const Guard& guard, std::string& reason) {
    reason = strip_local_scope(guard.code);
    return Outcome::kFail;
  }

  // The order of checks and the wording are those of Dynamo's TensorCheck::check_verbose.
  Outcome check_tensor(const TensorMatch& m, const Guard& guard, std::string& reason) {
    if (input_.find_constant(m.source)) return fail_with_code(guard, reason);
    const TensorInput* given = input_.find_tensor(m.source);
    if (!given) return Outcome::kKept;
    const EffectiveTensor t = effective(*given, m);
    const std::string actual_backend = upper(t.device.type);
    if (!m.backend.empty() && actual_backend != m.backend) {
      std::string actual_keys = m.dispatch_keys;
      for (auto at = actual_keys.find(m.backend); at != std::string::npos;
           at = actual_keys.find(m.backend, at + actual_backend.size())) {
        actual_keys.replace(at, m.backend.size(), actual_backend);
      }
      reason = tensor_reason(m.source, "dispatch key set mismatch. expected " + m.dispatch_keys +
                                           ", actual " + actual_keys);
      return Outcome::kFail;
    }
    if (!(t.dtype == m.dtype)) {
      reason = tensor_reason(m.source, "dtype mismatch. expected " + std::string(m.dtype.c10_name) +
                                           ", actual " + std::string(t.dtype.c10_name));
      return Outcome::kFail;
    }
    if (t.device.index != m.device_index) {
      reason =
          tensor_reason(m.source, "Tensor device index mismatch. Expected device index to be " +
                                      std::to_string(m.device_index) + ", actual " +
                                      std::to_string(t.device.index));
      return Outcome::kFail;
    }
    if (t.requires_grad != m.requires_grad) {
      // C++ streams print the bool as 1 or 0.
      reason = tensor_reason(m.source, "requires_grad mismatch. expected requires_grad=" +
                                           std::string(m.requires_grad ? "1" : "0"));
      return Outcome::kFail;
    }
    if (t.sizes.size() != m.sizes.size()) {
      reason = tensor_reason(m.source, "rank mismatch. expected " + std::to_string(m.sizes.size()) +
                                           ", actual " + std::to_string(t.sizes.size()));
      return Outcome::kFail;
    }
    bool unknown = false;
    for (std::size_t i = 0; i < m.sizes.size(); ++i) {
      if (m.sizes[i] && !t.sizes[i]) unknown = true;
      if (m.sizes[i] && t.sizes[i] && *m.sizes[i] != *t.sizes[i]) {
        reason = tensor_reason(m.source, "size mismatch at index " + std::to_string(i) +
                                             ". expected " + std::to_string(*m.sizes[i]) +
                                             ", actual " + std::to_string(*t.sizes[i]));
        return Outcome::kFail;
      }
      const bool have_stride = i < t.strides.size() && t.strides[i].has_value();
      if (m.strides[i] && !have_stride) unknown = true;
      if (m.strides[i] && have_stride && *m.strides[i] != *t.strides[i]) {
        reason = tensor_reason(m.source, "stride mismatch at index " + std::to_string(i) +
                                             ". expected " + std::to_string(*m.strides[i]) +
                                             ", actual " + std::to_string(*t.strides[i]));
        return Outcome::kFail;
      }
    }
    return unknown ? Outcome::kAssumed : Outcome::kPass;
  }

  Outcome check_constant(const Guard& guard, std::string& reason) {
    if (input_.find_tensor(guard.source)) return fail_with_code(guard, reason);
    const Value* given = input_.find_constant(guard.source);
    if (!given) return Outcome::kKept;
    if (!python_equals(*given, *guard.value)) return fail_with_code(guard, reason);
    return Outcome::kPass;
  }

  Outcome check_type(const Guard& guard, std::string& reason) {
    const bool tensor_type = guard.type_name.find("Tensor") != std::string::npos ||
                             guard.type_name.find("Parameter") != std::string::npos;
    if (input_.find_tensor(guard.source)) {
      return tensor_type || guard.type_name.empty() ? Outcome::kAssumed
                                                    : fail_with_code(guard, reason);
    }
    const Value* given = input_.find_constant(guard.source);
    if (!given) return Outcome::kKept;
    if (guard.type_name.empty()) return Outcome::kAssumed;
    return python_type_name(*given) == guard.type_name ? Outcome::kPass
                                                       : fail_with_code(guard, reason);
  }

  Outcome check_length(const Guard& guard, std::string& reason) {
    const Value* given = input_.find_constant(guard.source);
    if (!given) return Outcome::kKept;
    std::int64_t length = 0;
    if (given->kind == Value::Kind::kTuple) {
      length = static_cast<std::int64_t>(given->items.size());
    } else if (given->kind == Value::Kind::kString) {
      length = static_cast<std::int64_t>(given->string.size());
    } else {
      return Outcome::kAssumed;
    }
    return length == guard.value->integer ? Outcome::kPass : fail_with_code(guard, reason);
  }

  Outcome check_shape(const Guard& guard, std::string& reason, Warnings& gaps) {
    const auto result = evaluate(*guard.expr, [this](std::string_view s) { return resolve(s, 0); });
    if (result.state == ExprResult::State::kUnsupported) {
      gaps.push_back({where(guard), result.why + ", assumed to hold: " + guard.code});
      return Outcome::kAssumed;
    }
    if (result.state == ExprResult::State::kUnknown) return Outcome::kAssumed;
    return truthy(result.value) ? Outcome::kPass : fail_with_code(guard, reason);
  }

  // The value of SOURCE under this input: given, else what the guards expect (static sizes,
  // strides and constants); nullopt where neither says (a dynamic dim nobody gave).
  std::optional<Value> resolve(std::string_view source, int depth) {
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
    if (const auto access = parse_tensor_access(source)) return resolve_dim(*access);
    if (const Value* v = input_.find_constant(source)) return *v;
    if (input_.find_tensor(source)) return std::nullopt;
    for (const Guard* g : expected_constants_) {
      if (g->source == source) return *g->value;
    }
    return std::nullopt;
  }

  std::optional<Value> resolve_dim(const TensorAccess& access) {
    const TensorMatch* expected = nullptr;
    for (const TensorMatch* m : expected_tensors_) {
      if (m->source == access.base) expected = m;
    }
    const TensorInput* given = input_.find_tensor(access.base);
    Dims dims;
    if (given && expected) {
      const auto t = effective(*given, *expected);
      dims = access.kind == TensorAccess::Kind::kSize ? t.sizes : t.strides;
    } else if (given) {
      const Dims sizes = given->sizes.value_or(Dims{});
      dims = access.kind == TensorAccess::Kind::kSize
                 ? sizes
                 : given->strides.value_or(contiguous_strides(sizes));
    } else if (expected) {
      dims = access.kind == TensorAccess::Kind::kSize ? expected->sizes : expected->strides;
    }
    if (access.index >= dims.size() || !dims[access.index]) return std::nullopt;
    return Value::of_int(*dims[access.index]);
  }

  const GuardSet& set_;
  const ProposedInput& input_;
  std::vector<const TensorMatch*> expected_tensors_;
  std::vector<const Guard*> expected_constants_;
};

}  // namespace

GuardEvaluation evaluate_guards(const GuardSet& guards, const ProposedInput& input) {
  return Evaluation(guards, input).run();
}

}  // namespace fxscope::guards
