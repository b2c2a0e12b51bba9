#include "fxscope/report/summary_json.h"

#include <nlohmann/json.hpp>

#include "json_optional.h"

namespace fxscope::report {
namespace {

using nlohmann::json;

json stack_json(const trace::Stack& stack) {
  json frames = json::array();
  for (const auto& f : stack) frames.push_back(to_json(f));
  return frames;
}

json unit_json(const UnitSummary& u) {
  return json{{"compile_id", u.compile_id},
              {"frame", to_json(u.frame)},
              {"user_frame", to_json(u.user_frame)},
              {"attempts", u.attempts},
              {"restart_reasons", u.restart_reasons},
              {"dynamo_ops", or_null(u.dynamo_ops)},
              {"aten_ops", or_null(u.aten_ops)},
              {"post_grad_ops", or_null(u.post_grad_ops)},
              {"inductor_kernels", or_null(u.inductor_kernels)},
              {"triton_launches", u.triton_launches},
              {"extern_launches", u.extern_launches},
              {"compile_time_s", or_null(u.compile_time_s)},
              {"guard_count", or_null(u.guard_count)},
              {"failure", u.failure.empty() ? json(nullptr) : json(u.failure)},
              {"producer", u.producer.empty() ? json(nullptr) : json(u.producer)},
              {"export_issues", u.export_issues},
              {"graph_breaks", u.graph_breaks},
              {"recompile", or_null(u.recompile)}};
}

json break_json(const trace::GraphBreak& b) {
  json ids = json::array();
  for (const auto& id : b.compile_ids) ids.push_back(id.str());
  return json{{"compile_id", ids.empty() ? json(nullptr) : ids.front()},
              {"compile_ids", ids},
              {"file", b.file},
              {"line", b.line},
              {"reason", b.reason},
              {"explanation", b.explanation},
              {"hints", b.hints},
              {"gb_code", b.gb_code},
              {"count", b.count},
              {"user_stack", stack_json(b.user_stack)}};
}

json impact_json(const BreakImpact& i) {
  return json{{"graph_break", i.graph_break},
              {"split", i.split},
              {"resumed", i.resumed},
              {"eager_ops", i.eager_ops},
              {"host_sync", i.host_sync},
              {"frame_skipped", i.frame_skipped},
              {"eager_input_bytes", i.eager_input_bytes},
              {"crossing_bytes", i.crossing_bytes},
              {"crossing_tensors", i.crossing_tensors},
              {"unsized_tensors", i.unsized_tensors},
              {"eager_us", i.eager_us},
              {"sync_us", i.sync_us},
              {"crossing_us", i.crossing_us},
              {"launch_us", i.launch_us},
              {"guard_us", i.guard_us},
              {"lost_us", i.lost_us()}};
}

json recompile_json(const trace::Recompile& r) {
  json reasons = json::array();
  json failed = json::array();
  for (const auto& reason : r.reasons) {
    const std::string id = reason.failed_id.valid() ? reason.failed_id.str() : "";
    reasons.push_back(id.empty() ? reason.text : id + ": " + reason.text);
    failed.push_back(json{{"compile_id", id}, {"guard", reason.guard}, {"text", reason.text}});
  }
  return json{{"compile_id", r.id.str()}, {"reasons", reasons}, {"failed_guards", failed}};
}

}  // namespace

json to_json(const trace::StackFrame& frame) {
  return json{{"file", frame.file},
              {"line", frame.line},
              {"function", frame.function},
              {"code", frame.code}};
}

json to_json(const Warnings& warnings) {
  json out = json::array();
  for (const auto& w : warnings) out.push_back(json{{"where", w.where}, {"message", w.message}});
  return out;
}

json to_json(const Summary& s) {
  json units = json::array();
  for (const auto& u : s.units) units.push_back(unit_json(u));
  json breaks = json::array();
  for (const auto& b : s.graph_breaks) breaks.push_back(break_json(b));
  json impacts = json::array();
  for (const auto& i : s.break_impacts) impacts.push_back(impact_json(i));
  json recompiles = json::array();
  for (const auto& r : s.recompiles) recompiles.push_back(recompile_json(r));
  return json{{"fxscope_version", FXSCOPE_VERSION},
              {"path", s.path},
              {"other_logs", s.other_logs},
              {"bytes", s.bytes},
              {"lines", s.lines},
              {"units", units},
              {"graph_breaks", breaks},
              {"break_impact", {{"device", s.impact_device.name}, {"ranked", impacts}}},
              {"recompiles", recompiles},
              {"recompile_causes", recompile_causes_json(s.recompile_check)},
              {"warnings", to_json(s.warnings)}};
}

}  // namespace fxscope::report
