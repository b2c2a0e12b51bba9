#include "rank_facts.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "fxscope/core/text.h"
#include "fxscope/trace/md5.h"

namespace fxscope::report {

namespace {

using Json = nlohmann::json;
using trace::Artifact;
using trace::ArtifactKind;

bool is_cache_event(std::string_view name) {
  for (const std::string_view what : {"cache_hit", "cache_miss", "cache_bypass"}) {
    if (text::ends_with(name, what)) return true;
  }
  return false;
}

Json parse_json(const Artifact& a) {
  return Json::parse(a.payload.text(), nullptr, false);
}

std::vector<std::string> string_list(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& item : j) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

// The compile ids in a graph_execution payload: {"graph_execution_order": ["0/0", ...]} or
// entries that are objects with a compile_id.
std::vector<std::string> execution_order(const Json& j) {
  std::vector<std::string> out;
  if (!j.is_object() || !j.contains("graph_execution_order")) return out;
  for (const auto& item : j["graph_execution_order"]) {
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    } else if (item.is_object() && item.contains("compile_id") && item["compile_id"].is_string()) {
      out.push_back(item["compile_id"].get<std::string>());
    }
  }
  return out;
}

// Shapes, strides and dtypes of every op's outputs, in order: what must agree across ranks.
// Runtime estimates are left out (they are compared on their own, with a tolerance).
std::string tensor_meta(const Json& j) {
  std::string out;
  if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array()) return out;
  for (const auto& op : j["ops"]) {
    if (!op.is_object()) continue;
    out += op.value("name", std::string("?"));
    if (op.contains("outputs")) out += op["outputs"].dump();
    out += ';';
  }
  return out;
}

double runtime_ns(const Json& j) {
  double sum = 0;
  if (!j.is_object() || !j.contains("ops") || !j["ops"].is_array()) return sum;
  for (const auto& op : j["ops"]) {
    if (op.is_object() && op.contains("estimated_runtime_ns") &&
        op["estimated_runtime_ns"].is_number()) {
      sum += op["estimated_runtime_ns"].get<double>();
    }
  }
  return sum;
}

void add_graph(std::vector<std::pair<std::string, std::string>>& levels, std::string level,
               const Artifact* a) {
  if (a != nullptr)
    levels.emplace_back(std::move(level), trace::md5_hex(graph_code(a->payload.text())));
}

}  // namespace

std::string graph_code(std::string_view graph) {
  std::string code;
  std::size_t start = 0;
  while (start < graph.size()) {
    auto end = graph.find('\n', start);
    if (end == std::string_view::npos) end = graph.size();
    const std::string_view line = graph.substr(start, end - start);
    start = end + 1;
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    for (std::size_t i = 0; i < line.size();) {
      // "cuda:3" -> "cuda": each rank computes on its own device.
      if (line.compare(i, 5, "cuda:") == 0) {
        code += "cuda";
        i += 5;
        while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
        continue;
      }
      code += line[i++];
    }
    code += '\n';
  }
  return code;
}

std::string without_addresses(std::string_view reason) {
  std::string out;
  std::size_t i = 0;
  while (i < reason.size()) {
    std::size_t digits = 0;
    while (i + digits < reason.size() && reason[i + digits] >= '0' && reason[i + digits] <= '9') {
      ++digits;
    }
    if (digits >= 8) {
      out += "<id>";
      i += digits;
    } else if (digits > 0) {
      out.append(reason.substr(i, digits));
      i += digits;
    } else {
      out += reason[i++];
    }
  }
  return out;
}

CollectiveCalls collective_calls(std::string_view code) {
  CollectiveCalls calls;
  constexpr std::string_view kNamespace = "_c10d_functional.";
  std::size_t line_start = 0;
  while (line_start < code.size()) {
    auto line_end = code.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = code.size();
    std::string_view line = code.substr(line_start, line_end - line_start);
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    for (auto at = line.find(kNamespace); at != std::string_view::npos;
         at = line.find(kNamespace, at + 1)) {
      const auto name_start = at + kNamespace.size();
      const auto dot = line.find('.', name_start);
      if (dot == std::string_view::npos) break;
      // Only calls count: "op.default(", not a mention in a string or a name.
      if (line.substr(dot, 9) != ".default(") continue;
      (line.substr(name_start, dot - name_start) == "wait_tensor" ? calls.waits
                                                                  : calls.collectives)++;
    }
    line_start = line_end + 1;
  }
  return calls;
}

RankFacts facts_of(const trace::TraceLog& log) {
  RankFacts facts;
  std::vector<const Artifact*> cache;
  for (const auto& unit : log.units()) {
    const std::string id = unit.id.str();
    facts.compile_ids.push_back(id);
    auto& levels = facts.graphs[id];
    add_graph(levels, "Dynamo graph", unit.dynamo_graph());
    add_graph(levels, "AOT graph", unit.aot_graph());
    add_graph(levels, "post-grad graph", unit.find(ArtifactKind::kPostGradGraph));
    int unwaited = 0;
    for (const auto& a : unit.artifacts) {
      if (is_cache_event(a.name)) cache.push_back(&a);
      if (a.kind == ArtifactKind::kOutputCode) {
        const auto calls = collective_calls(a.payload.text());
        unwaited += std::max(0, calls.collectives - calls.waits);
      } else if (a.name == "inductor_collective_schedule") {
        auto& ops = facts.collectives[id];
        for (auto& op : string_list(parse_json(a))) ops.push_back(std::move(op));
      } else if (a.name == "inductor_runtime_and_tensor_meta") {
        const Json j = parse_json(a);
        facts.tensor_meta[id] += tensor_meta(j);
        facts.runtime_ns[id] += runtime_ns(j);
      } else if (a.name == "graph_execution") {
        facts.execution_order = execution_order(parse_json(a));
      }
    }
    if (unwaited > 0) facts.unwaited[id] = unwaited;
  }
  for (const auto& a : log.global_artifacts()) {
    if (is_cache_event(a.name)) cache.push_back(&a);
    if (a.name == "graph_execution") facts.execution_order = execution_order(parse_json(a));
  }
  std::sort(cache.begin(), cache.end(),
            [](const Artifact* a, const Artifact* b) { return a->line < b->line; });
  for (const auto* a : cache) facts.cache_events.push_back(a->name);
  for (const auto& r : log.recompiles()) {
    for (const auto& reason : r.reasons)
      facts.recompiles.push_back(r.id.str() + ": " + without_addresses(reason.text));
  }
  return facts;
}

}  // namespace fxscope::report
