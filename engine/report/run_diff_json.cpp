#include "fxscope/report/run_diff_json.h"

#include <nlohmann/json.hpp>

#include "json_optional.h"

#include "fxscope/report/run_diff_text.h"
#include "fxscope/report/summary_json.h"

namespace fxscope::report {
namespace {

using nlohmann::json;

json unit_json(const DiffUnit& u) {
  return json{{"compile_id", u.compile_id},
              {"frame", to_json(u.frame)},
              {"user_frame", to_json(u.user_frame)},
              {"aten_ops", u.aten_ops},
              {"kernels", u.launches},
              {"compile_s", u.compile_s}};
}

json units_json(const std::vector<DiffUnit>& units) {
  json out = json::array();
  for (const auto& u : units) out.push_back(unit_json(u));
  return out;
}

json matched_json(const UnitDiff& d) {
  json ops = json::array();
  for (const auto& op : d.ops) ops.push_back(json{{"op", op.op}, {"a", op.a}, {"b", op.b}});
  json kernels = json::array();
  for (const auto& k : d.kernels) {
    kernels.push_back(
        json{{"kind", k.kind == KernelChangeKind::refused ? std::string("refused")
                                                          : std::string(to_string(k.kind))},
             {"a", k.a},
             {"b", k.b},
             {"ops", k.ops}});
  }
  json caches = json::array();
  for (const auto& c : d.caches) {
    json components = json::array();
    for (const auto& k : c.components)
      components.push_back(json{{"name", k.name}, {"a", k.a}, {"b", k.b}});
    caches.push_back(json{{"cache", c.cache},
                          {"a_state", c.a_state.empty() ? json(nullptr) : json(c.a_state)},
                          {"b_state", c.b_state.empty() ? json(nullptr) : json(c.b_state)},
                          {"same_key", c.same_key},
                          {"key_components_differing", components}});
  }
  return json{{"a", unit_json(d.a)},
              {"b", unit_json(d.b)},
              {"same_graph", d.same_graph()},
              {"ops", ops},
              {"kernels", kernels},
              {"caches", caches},
              {"compile_s_delta", d.b.compile_s - d.a.compile_s},
              {"a_dynamo_s", or_null(d.a_dynamo_s)},
              {"b_dynamo_s", or_null(d.b_dynamo_s)}};
}

json breaks_json(const std::vector<BreakChange>& breaks) {
  json out = json::array();
  for (const auto& c : breaks) {
    out.push_back(json{{"location", c.location},
                       {"reason", c.reason},
                       {"count", c.count},
                       {"compile_ids", c.compile_ids}});
  }
  return out;
}

// The same breaks under the units that hit them, for a reader that walks units.
json unit_breaks_json(const std::vector<UnitBreaks>& units) {
  json out = json::array();
  for (const auto& u : units) {
    out.push_back(json{{"compile_id", u.compile_id},
                       {"frame", to_json(u.frame)},
                       {"breaks", breaks_json(u.breaks)}});
  }
  return out;
}

json recompiles_json(const std::vector<RecompileChange>& recompiles) {
  json out = json::array();
  for (const auto& c : recompiles) {
    out.push_back(json{{"compile_id", c.compile_id}, {"frame", c.frame}, {"guard", c.guard}});
  }
  return out;
}

}  // namespace

json to_json(const RunDiff& d) {
  json matched = json::array();
  for (const auto& u : d.matched) matched.push_back(matched_json(u));
  json phases = json::array();
  for (const auto& p : d.phases) {
    phases.push_back(
        json{{"name", p.name}, {"a_s", p.a_s}, {"b_s", p.b_s}, {"delta_s", p.b_s - p.a_s}});
  }
  json cache_states = json::array();
  for (const auto& c : d.cache_states) {
    cache_states.push_back(json{{"cache", c.cache}, {"state", c.state}, {"a", c.a}, {"b", c.b}});
  }
  return json{{"fxscope_version", FXSCOPE_VERSION},
              {"a", json{{"path", d.a_path},
                         {"units", d.a_units},
                         {"kernels", d.a_launches},
                         {"compile_s", d.a_compile_s}}},
              {"b", json{{"path", d.b_path},
                         {"units", d.b_units},
                         {"kernels", d.b_launches},
                         {"compile_s", d.b_compile_s}}},
              {"verdict", verdict(d)},
              {"unrelated", d.unrelated()},
              {"same_compiles", d.same_compiles()},
              {"compile_s_delta", d.b_compile_s - d.a_compile_s},
              {"matched", matched},
              {"only_a", units_json(d.only_a)},
              {"only_b", units_json(d.only_b)},
              {"breaks_fixed", breaks_json(d.breaks_fixed)},
              {"breaks_new", breaks_json(d.breaks_new)},
              {"breaks_fixed_by_unit", unit_breaks_json(breaks_by_unit(d, d.breaks_fixed, true))},
              {"breaks_new_by_unit", unit_breaks_json(breaks_by_unit(d, d.breaks_new, false))},
              {"recompiles_fixed", recompiles_json(d.recompiles_fixed)},
              {"recompiles_new", recompiles_json(d.recompiles_new)},
              {"phases", phases},
              {"cache_lookups", cache_states}};
}

}  // namespace fxscope::report
