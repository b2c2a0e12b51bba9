#include "logged_cache_lookups.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "fxscope/core/text.h"

namespace fxscope::report {
namespace {

// Shown values are a component's first line, cut here: a graph's code or a config dict is
// named, not printed.
constexpr std::size_t kKeyValueChars = 60;

struct LookupArtifact {
  std::string_view prefix;  // the artifact name before the outcome
  std::string_view cache;   // CacheLookup::cache
};
constexpr LookupArtifact kLookupArtifacts[] = {{"fx_graph_cache_", "fx_graph"},
                                               {"aotautograd_cache_", "aot_autograd"}};

std::string value_line(std::string_view value) {
  value = value.substr(0, value.find('\n'));
  if (value.size() <= kKeyValueChars) return std::string(value);
  return std::string(value.substr(0, kKeyValueChars)) + "...";
}

// "[hash] name: value" -> name, (hash, value's first line); a line of another form is kept
// whole under its own text, so that nothing PyTorch logged is left out of a comparison.
void add_detail(std::string_view line,
                std::map<std::string, std::pair<std::string, std::string>>& out) {
  if (line.starts_with('[')) {
    const auto close = line.find("] ");
    const auto colon = close == std::string_view::npos ? close : line.find(": ", close);
    if (colon != std::string_view::npos) {
      out[std::string(line.substr(close + 2, colon - close - 2))] = {
          std::string(line.substr(1, close - 1)), value_line(line.substr(colon + 2))};
      return;
    }
  }
  out[std::string(line)] = {std::string(line), value_line(line)};
}

std::string string_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<CacheLookup> from_artifact(const trace::Artifact& a) {
  for (const auto& [prefix, cache] : kLookupArtifacts) {
    if (!text::starts_with(a.name, prefix)) continue;
    CacheLookup l;
    l.cache = std::string(cache);
    l.state = a.name.substr(prefix.size());
    const auto j = nlohmann::json::parse(a.payload.text(), nullptr, false);
    if (!j.is_object()) return l;
    if (const auto state = string_of(j, "cache_state"); !state.empty()) l.state = state;
    l.key = string_of(j, "key");
    l.reason = string_of(j, "cache_bypass_reason");
    if (l.reason.empty()) l.reason = string_of(j, "reason");
    if (const auto it = j.find("components"); it != j.end() && it->is_array()) {
      for (const auto& c : *it) {
        if (c.is_string()) add_detail(c.get<std::string>(), l.key_details);
      }
    }
    return l;
  }
  return std::nullopt;
}

}  // namespace

std::vector<CacheLookup> with_logged_lookups(const trace::CompileUnit& unit,
                                             std::vector<CacheLookup> from_events) {
  std::vector<CacheLookup> logged;
  for (const auto& a : unit.artifacts) {
    if (auto l = from_artifact(a)) logged.push_back(std::move(*l));
  }
  if (logged.empty()) return from_events;
  const bool has_backward = unit.find(trace::ArtifactKind::kAotBackwardGraph) != nullptr;
  const auto fx_lookups = std::count_if(logged.begin(), logged.end(),
                                        [](const CacheLookup& l) { return l.cache == "fx_graph"; });
  std::ptrdiff_t fx_seen = 0;
  for (auto& l : logged) {
    const auto event = std::find_if(from_events.begin(), from_events.end(), [&](const auto& e) {
      return e.cache == l.cache && !l.key.empty() && e.key == l.key;
    });
    if (event != from_events.end()) {
      l.backward = event->backward;
      if (l.reason.empty()) l.reason = event->reason;
    } else if (l.cache == "fx_graph") {
      // Without an event, a training unit's FX graphs are looked up forward, then backward.
      l.backward = has_backward && fx_lookups >= 2 && fx_seen == fx_lookups - 1;
    }
    if (l.cache == "fx_graph") ++fx_seen;
  }
  std::vector<CacheLookup> out = std::move(logged);
  const std::size_t from_artifacts = out.size();
  for (auto& e : from_events) {
    const auto end = out.begin() + static_cast<std::ptrdiff_t>(from_artifacts);
    const bool logged_cache =
        std::any_of(out.begin(), end, [&](const CacheLookup& l) { return l.cache == e.cache; });
    if (!logged_cache) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace fxscope::report
