#include "fxscope/report/compile_time_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "json_optional.h"

namespace fxscope::report {
namespace {

using nlohmann::json;

json phase_json(const PhaseTime& p) {
  return json{{"name", p.name},       {"what", p.what},     {"depth", p.depth},
              {"total_s", p.total_s}, {"self_s", p.self_s}, {"count", p.count}};
}

json tree_json(const std::optional<PhaseTree>& tree) {
  if (!tree) return nullptr;
  json phases = json::array();
  for (const auto& p : tree->phases) phases.push_back(phase_json(p));
  const auto deviation = tree->deviation();
  return json{{"root", tree->root},
              {"events_s", tree->events_s},
              {"accounted_s", tree->accounted_s},
              {"other_s", tree->other_s},
              {"dynamo_s", or_null(tree->dynamo_s)},
              {"deviation", or_null(deviation)},
              {"within_tolerance",
               deviation ? json(std::abs(*deviation) <= kCompileTimeTolerance) : json(nullptr)},
              {"phases", phases}};
}

json unit_json(const UnitCompileTime& u) {
  json caches = json::array();
  for (const auto& c : u.caches) {
    caches.push_back(json{{"cache", c.cache},
                          {"state", c.state},
                          {"key", c.key.empty() ? json(nullptr) : json(c.key)},
                          {"reason", c.reason.empty() ? json(nullptr) : json(c.reason)},
                          {"backward", c.backward}});
  }
  json triton = json::array();
  for (const auto& k : u.triton_compiles)
    triton.push_back(json{{"kernel", k.kernel}, {"us", k.us}});
  json runtime = json::array();
  for (const auto& r : u.runtime) {
    runtime.push_back(json{{"name", r.name},
                           {"kernel", r.kernel.empty() ? json(nullptr) : json(r.kernel)},
                           {"seconds", r.seconds}});
  }
  return json{
      {"compile_id", u.compile_id},
      {"compile_s", u.compile_s()},
      {"forward", tree_json(u.forward)},
      {"backward", tree_json(u.backward)},
      {"caches", caches},
      {"triton_compiles", triton},
      {"autotune_us", or_null(u.autotune_us)},
      {"runtime", runtime},
      {"guard_count", or_null(u.guard_count)},
      {"guard_latency_us", or_null(u.guard_latency_us)},
      {"cudagraph_skip_reason", or_null(u.cudagraph_skip_reason)},
      {"cuda_graphs_recorded", or_null(u.cuda_graphs_recorded)},
      {"cuda_graph_prediction",
       u.cuda_graph_prediction ? json{{"usable", u.cuda_graph_prediction->usable},
                                      {"reasons", u.cuda_graph_prediction->reasons},
                                      {"agrees", u.cuda_graph_prediction_agrees().value_or(true)}}
                               : json(nullptr)},
      {"failure", or_null(u.failure)},
      {"unmatched_events", u.unmatched_events}};
}

}  // namespace

json to_json(const CompileTimeReport& report) {
  json by_phase = json::array();
  for (const auto& p : report.by_phase) {
    by_phase.push_back(json{{"name", p.name},
                            {"what", p.what},
                            {"self_s", p.self_s},
                            {"count", p.count},
                            {"share", report.total_s > 0 ? p.self_s / report.total_s : 0.0}});
  }
  json units = json::array();
  std::size_t checked = 0;
  std::size_t within = 0;
  for (const auto& u : report.units) {
    units.push_back(unit_json(u));
    for (const auto* tree :
         {u.forward ? &*u.forward : nullptr, u.backward ? &*u.backward : nullptr}) {
      const auto deviation = tree != nullptr ? tree->deviation() : std::nullopt;
      if (!deviation) continue;
      ++checked;
      if (std::abs(*deviation) <= kCompileTimeTolerance) ++within;
    }
  }
  return json{{"path", report.path},
              {"total_s", report.total_s},
              {"tolerance", kCompileTimeTolerance},
              {"compiles_checked", checked},
              {"compiles_within_tolerance", within},
              {"by_phase", by_phase},
              {"units", units}};
}

}  // namespace fxscope::report
