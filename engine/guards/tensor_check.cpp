// TENSOR_MATCH, modelled on torch/csrc/dynamo/guards.cpp: the leaf guard first checks the
// Python type (TENSOR_MATCH::check_verbose_nopybind), then TensorCheck::check_verbose compares
// dispatch keys, dtype, device index, requires_grad, rank, then EVERY size, and only then every
// stride. With a dynamic batch (size [None, 64], stride [64, 1]) a tensor of width 128 fails
// "size mismatch at index 1", never "stride mismatch at index 0".

#include <cctype>
#include <string>

#include "fxscope/guards/dynamo_text.h"
#include "guard_checks.h"

namespace fxscope::guards::detail {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// TensorCheck::check_verbose starts every reason with "tensor '<name>' ", the name being the
// source; get_guard_fail_reason_helper's strip_local_scope then writes L['x'] as x.
CheckResult tensor_failure(const TensorMatch& m, const std::string& detail) {
  std::string reason = "tensor '" + m.source + "' " + detail;
  // TENSOR_MATCH::check_verbose_nopybind adds this when the failing value is a Parameter.
  if (m.tensor_class == "Parameter") {
    reason +=
        ". Guard failed on a parameter, consider using "
        "torch._dynamo.config.force_parameter_static_shapes = False to allow dynamism on "
        "parameters.";
  }
  return {Outcome::kFail, strip_local_scope(reason), {}};
}

std::string mismatch(std::string_view what, std::size_t index, std::int64_t expected,
                     std::int64_t actual) {
  return std::string(what) + " mismatch at index " + std::to_string(index) + ". expected " +
         std::to_string(expected) + ", actual " + std::to_string(actual);
}

}  // namespace

EffectiveTensor effective_tensor(const TensorInput& given, const TensorMatch& expected) {
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

CheckResult check_tensor_match(const TensorMatch& m, const TensorInput* given,
                               const Value* given_constant) {
  if (given_constant) {
    // The text as Dynamo builds it, its stray quote included.
    const std::string reason = "expected type of '" + m.source + "' to be a tensor type, ' but " +
                               "found <class '" + std::string(python_type_name(*given_constant)) +
                               "'>";
    return {Outcome::kFail, strip_local_scope(reason), {}};
  }
  if (!given) return {Outcome::kKept, {}, {}};
  const EffectiveTensor t = effective_tensor(*given, m);
  const std::string actual_backend = upper(t.device.type);
  if (!m.backend.empty() && actual_backend != m.backend) {
    std::string actual_keys = m.dispatch_keys;
    for (auto at = actual_keys.find(m.backend); at != std::string::npos;
         at = actual_keys.find(m.backend, at + actual_backend.size())) {
      actual_keys.replace(at, m.backend.size(), actual_backend);
    }
    return tensor_failure(
        m, "dispatch key set mismatch. expected " + m.dispatch_keys + ", actual " + actual_keys);
  }
  if (!(t.dtype == m.dtype)) {
    return tensor_failure(m, "dtype mismatch. expected " + std::string(m.dtype.c10_name) +
                                 ", actual " + std::string(t.dtype.c10_name));
  }
  if (t.device.index != m.device_index) {
    return tensor_failure(m, "Tensor device index mismatch. Expected device index to be " +
                                 std::to_string(m.device_index) + ", actual " +
                                 std::to_string(t.device.index));
  }
  if (t.requires_grad != m.requires_grad) {
    // C++ streams print the bool as 1 or 0.
    return tensor_failure(m, "requires_grad mismatch. expected requires_grad=" +
                                 std::string(m.requires_grad ? "1" : "0"));
  }
  if (t.sizes.size() != m.sizes.size()) {
    return tensor_failure(m, "rank mismatch. expected " + std::to_string(m.sizes.size()) +
                                 ", actual " + std::to_string(t.sizes.size()));
  }
  bool unknown = false;
  for (std::size_t i = 0; i < m.sizes.size(); ++i) {
    if (!m.sizes[i]) continue;
    if (!t.sizes[i]) {
      unknown = true;
    } else if (*m.sizes[i] != *t.sizes[i]) {
      return tensor_failure(m, mismatch("size", i, *m.sizes[i], *t.sizes[i]));
    }
  }
  for (std::size_t i = 0; i < m.strides.size(); ++i) {
    if (!m.strides[i]) continue;
    if (i >= t.strides.size() || !t.strides[i]) {
      unknown = true;
    } else if (*m.strides[i] != *t.strides[i]) {
      return tensor_failure(m, mismatch("stride", i, *m.strides[i], *t.strides[i]));
    }
  }
  return {unknown ? Outcome::kAssumed : Outcome::kPass, {}, {}};
}

}  // namespace fxscope::guards::detail
