#pragma once
// The checks of single guards, each worded as Dynamo words its failure. Internal to the guards
// module: the evaluator walks the tree and asks these for one guard at a time.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/diagnostics.h"
#include "fxscope/guards/guard.h"
#include "fxscope/guards/proposed_input.h"

namespace fxscope::guards::detail {

enum class Outcome {
  kPass,     // compared with a value the input gives, and holds
  kFail,     // fails: `reason` is Dynamo's text
  kKept,     // the input leaves the guarded value as the guard expects
  kAssumed,  // nothing the input says can decide it
};

struct CheckResult {
  Outcome outcome = Outcome::kAssumed;
  std::string reason;
  Warnings gaps;  // why a guard was assumed to hold although it names something
};

// TENSOR_MATCH as torch/csrc/dynamo/guards.cpp checks it (TENSOR_MATCH::check_verbose_nopybind
// and TensorCheck::check_verbose). GIVEN is the input's tensor for the source, GIVEN_CONSTANT a
// Python value the input gives there instead; both null when the input leaves it.
CheckResult check_tensor_match(const TensorMatch& expected, const TensorInput* given,
                               const Value* given_constant);

// The tensor a given input describes once each field it leaves out takes the guard's value.
struct EffectiveTensor {
  Dims sizes;
  Dims strides;
  Dtype dtype;
  Device device;
  bool requires_grad = false;
};
EffectiveTensor effective_tensor(const TensorInput& given, const TensorMatch& expected);

// GLOBAL_STATE: whether the state ACTUAL (the JSON after "against") fails GlobalStateGuard's
// check of the state EXPECTED, and the names its reason() lists for the fields that differ,
// in its order, each followed by a space ("grad_mode autocast "); nullopt when either text is
// no such JSON.
struct GlobalStateChange {
  bool changed = false;
  std::string names;
};
std::optional<GlobalStateChange> global_state_change(std::string_view expected,
                                                     std::string_view actual);

// Answers the guards of one set for one input, each once.
class GuardChecker {
 public:
  GuardChecker(const GuardSet& set, const ProposedInput& input);

  const CheckResult& check(std::size_t guard);

 private:
  CheckResult run(const Guard& guard);
  CheckResult check_constant(const Guard& guard);
  CheckResult check_type(const Guard& guard);
  CheckResult check_length(const Guard& guard);
  CheckResult check_shape(const Guard& guard);
  CheckResult check_observed(const Guard& guard);
  std::optional<Value> resolve(std::string_view source, int depth) const;
  std::optional<Value> resolve_dim(std::string_view base, bool size, std::size_t index) const;

  const GuardSet& set_;
  const ProposedInput& input_;
  std::vector<std::optional<CheckResult>> results_;
};

// The key under which a guard's printed check is matched with the call's own (ObservedCheck);
// nullopt for guards of which a source may hold several, or that relate several values.
struct ObservedKey {
  std::string tag;
  std::string source;
};
std::optional<ObservedKey> observed_key(const Guard& guard);

// Dynamo's reason when a guard fails on its printed check: the code, L['x'] written x.
CheckResult failed_with_code(const Guard& guard);

// Where a guard sits, for warnings: "guard tree line 12" or its tag.
std::string guard_location(const Guard& guard);

}  // namespace fxscope::guards::detail
