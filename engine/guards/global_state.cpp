// GLOBAL_STATE, modelled on GlobalStateGuard in torch/csrc/dynamo/guards.cpp: the guard tree
// prints the state a cache entry was compiled under as JSON (its to_json), and a failure
// reads "GLOBAL_STATE changed: " followed by reason()'s names of the fields that differ
// ("GLOBAL_STATE changed: grad_mode autocast(cuda)_enabled " in PyTorch 2.11).

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string>

#include "guard_checks.h"

namespace fxscope::guards::detail {

namespace {

using nlohmann::json;

std::optional<json> state_json(std::string_view text) {
  const auto open = text.find('{');
  const auto close = text.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  auto parsed = json::parse(text.substr(open, close - open + 1), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

// at::autocast::_AUTOCAST_SUPPORTED_DEVICES, the order of the JSON's "enabled" and "dtype"
// arrays, each named as c10::DeviceTypeName(type, lower_case=true) writes it.
constexpr std::array<std::string_view, 10> kAutocastDevices{
    "cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla", "privateuseone", "mps"};

// The autocast part of reason() (pytorch#172636): per device "autocast(<device>)_enabled" when
// the flag differs, else "autocast(<device>)_dtype" when autocast is on and the dtype differs
// (AutocastState::operator== ignores the dtype of a device where autocast is off), then
// "autocast_cache_enabled".
std::string autocast_changes(const json& a, const json& b) {
  if (!a.is_object() || !b.is_object()) return a == b ? "" : "autocast ";
  const auto& ea = a.value("enabled", json::array());
  const auto& eb = b.value("enabled", json::array());
  const auto& da = a.value("dtype", json::array());
  const auto& db = b.value("dtype", json::array());
  std::string out;
  const std::size_t n = std::min({ea.size(), eb.size(), da.size(), db.size()});
  for (std::size_t i = 0; i < n; ++i) {
    const std::string device =
        i < kAutocastDevices.size() ? std::string(kAutocastDevices[i]) : std::to_string(i);
    if (ea[i] != eb[i]) {
      out += "autocast(" + device + ")_enabled ";
    } else if (ea[i] == true && da[i] != db[i]) {
      out += "autocast(" + device + ")_dtype ";
    }
  }
  if (a.value("cached_enabled", json()) != b.value("cached_enabled", json())) {
    out += "autocast_cache_enabled ";
  }
  return out;
}

}  // namespace

std::optional<GlobalStateChange> global_state_change(std::string_view expected,
                                                     std::string_view actual) {
  const auto a = state_json(expected);
  const auto b = state_json(actual);
  if (!a || !b) return std::nullopt;
  // reason()'s order; torch_function_all_disabled is checked but never named.
  constexpr std::array<std::string_view, 10> kFields{"grad_mode",
                                                     "autocast_state",
                                                     "torch_function",
                                                     "deterministic_algorithms",
                                                     "deterministic_algorithms_warn_only",
                                                     "allow_tf32",
                                                     "allow_fp16_reduce",
                                                     "allow_bf16_reduce",
                                                     "num_threads",
                                                     "default_dtype"};
  GlobalStateChange change;
  for (const auto field : kFields) {
    const std::string key(field);
    const json& va = a->contains(key) ? (*a)[key] : json();
    const json& vb = b->contains(key) ? (*b)[key] : json();
    if (field == "autocast_state") {
      change.names += autocast_changes(va, vb);
    } else if (va != vb) {
      change.names += key + " ";
    }
  }
  const auto all_disabled = [](const json& state) {
    return state.value("torch_function_all_disabled", json());
  };
  change.changed = !change.names.empty() || all_disabled(*a) != all_disabled(*b);
  return change;
}

}  // namespace fxscope::guards::detail
