#pragma once
// The JSON of an optional field: its value, or null when absent (every --json form uses it).

#include <nlohmann/json.hpp>
#include <optional>

namespace fxscope::report {

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace fxscope::report
