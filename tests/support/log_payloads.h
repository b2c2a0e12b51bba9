#pragma once
// The payloads of one record kind in a sample's log, read with the real trace reader and cached
// per sample: graph and output-code tests take their inputs from real logs this way.

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fxscope/trace/trace_log.h"
#include "samples.h"

namespace fxscope::test {

// One record with a payload: its kind (the artifact name for artifacts) and compile id "0/1".
struct LogPayload {
  std::string kind;
  std::string compile_id;
  std::string payload;  // tabs stripped
  std::size_t line = 0;
};

inline std::vector<LogPayload> read_payloads_uncached(const std::string& sample_name) {
  std::vector<LogPayload> out;
  auto log = trace::read_trace(sample(sample_name));
  if (!log) return out;  // the tests then find no payload and say so
  const auto add = [&](const trace::Artifact& a) {
    if (a.payload.empty()) return;
    trace::CompileId id = a.id;
    id.attempt = 0;
    out.push_back({a.name, id.valid() ? id.str() : "", a.payload.text(), a.line});
  };
  for (const auto& unit : log->units()) {
    for (const auto& a : unit.artifacts) add(a);
  }
  for (const auto& a : log->global_artifacts()) add(a);
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
  return out;
}

// The payloads of SAMPLE_NAME's log whose kind is KIND, in log order (each log is read once).
inline std::vector<LogPayload> payloads(const std::string& sample_name, const std::string& kind) {
  static std::map<std::string, std::vector<LogPayload>> cache;
  auto it = cache.find(sample_name);
  if (it == cache.end()) it = cache.emplace(sample_name, read_payloads_uncached(sample_name)).first;
  std::vector<LogPayload> out;
  for (const LogPayload& p : it->second) {
    if (p.kind == kind) out.push_back(p);
  }
  return out;
}

// The first payload of KIND (empty when there is none, which the tests then report).
inline std::string first_payload(const std::string& sample_name, const std::string& kind) {
  const auto all = payloads(sample_name, kind);
  return all.empty() ? std::string() : all.front().payload;
}

// Every bundled sample (folders of sample_graphs/).
inline const std::vector<std::string>& all_samples() {
  static const std::vector<std::string> names = {
      "gpt2_12layer",     "gpt2_2layer",        "gpt2_2layer_eager_attention",
      "gpt2_48layer",     "graph_breaks",       "llama_48layer",
      "max_autotune_mlp", "pointwise_chain",    "reduce_overhead_dynamic",
      "residual_mlp",     "residual_mlp_train", "resnet18",
      "resnet50"};
  return names;
}

}  // namespace fxscope::test
