#include "fxscope/trace/compilation_metrics.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "fxscope/trace/json_scan.h"

namespace fxscope::trace {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 40> kFields{"compile_id",
                                                   "co_name",
                                                   "co_filename",
                                                   "co_firstlineno",
                                                   "guard_count",
                                                   "shape_env_guard_count",
                                                   "graph_op_count",
                                                   "graph_node_count",
                                                   "graph_input_count",
                                                   "entire_frame_compile_time_s",
                                                   "backend_compile_time_s",
                                                   "inductor_compile_time_s",
                                                   "code_gen_time_s",
                                                   "dynamo_time_before_restart_s",
                                                   "duration_us",
                                                   "fail_type",
                                                   "fail_reason",
                                                   "fail_user_frame_filename",
                                                   "fail_user_frame_lineno",
                                                   "restart_reasons",
                                                   "has_guarded_code",
                                                   "is_forward",
                                                   "guard_latency_us",
                                                   "pre_grad_pass_time_us",
                                                   "joint_graph_pass_time_us",
                                                   "post_grad_pass_time_us",
                                                   "triton_compile_time_us",
                                                   "compile_time_autotune_time_us",
                                                   "gc_time_us",
                                                   "structured_logging_overhead_us",
                                                   "triton_kernel_compile_times_us",
                                                   "inductor_fx_local_cache_hit_count",
                                                   "inductor_fx_local_cache_miss_count",
                                                   "inductor_fx_remote_cache_hit_count",
                                                   "inductor_fx_remote_cache_miss_count",
                                                   "aotautograd_local_cache_hit_count",
                                                   "aotautograd_local_cache_miss_count",
                                                   "aotautograd_remote_cache_hit_count",
                                                   "aotautograd_remote_cache_miss_count",
                                                   "cudagraph_skip_reason"};

// Typed reads that treat a missing, null or differently typed field as absent: metrics fields
// come and go between PyTorch versions, and none of them is worth failing the record for.
std::optional<std::int64_t> get_int(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

std::optional<double> get_double(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<std::string> get_string(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<bool> get_bool(const Json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

// Dynamo logs the per-kernel times as a string holding a JSON list of [name, us] pairs.
std::vector<KernelCompileTime> kernel_compile_times(const Json& o) {
  std::vector<KernelCompileTime> times;
  const auto text = get_string(o, "triton_kernel_compile_times_us");
  if (!text) return times;
  const Json list = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array()) return times;
  for (const auto& pair : list) {
    if (pair.is_array() && pair.size() == 2 && pair[0].is_string() && pair[1].is_number_integer()) {
      times.push_back({pair[0].get<std::string>(), pair[1].get<std::int64_t>()});
    }
  }
  return times;
}

CacheCounts cache_counts(const Json& o, const std::string& prefix) {
  return {get_int(o, (prefix + "_local_cache_hit_count").c_str()),
          get_int(o, (prefix + "_local_cache_miss_count").c_str()),
          get_int(o, (prefix + "_remote_cache_hit_count").c_str()),
          get_int(o, (prefix + "_remote_cache_miss_count").c_str())};
}

}  // namespace

Result<CompilationMetrics> CompilationMetrics::from_envelope(std::string_view envelope,
                                                             std::string_view kind) {
  std::string_view body;
  const bool sound = for_each_member(envelope, [&](std::string_view key, std::string_view value) {
    if (key == kind) body = value;
    return body.empty();
  });
  if (!sound) return make_error("expected a JSON object holding " + std::string(kind));
  // The object also holds the whole Dynamo and Inductor configs (tens of KB of escaped JSON):
  // parse only the members read below.
  Json o = Json::object();
  const bool object = for_each_member(body, [&](std::string_view key, std::string_view value) {
    if (std::find(kFields.begin(), kFields.end(), key) != kFields.end()) {
      o[std::string(key)] = Json::parse(value, nullptr, /*allow_exceptions=*/false);
    }
    return true;
  });
  if (!object) return make_error("expected an object under \"" + std::string(kind) + "\"");
  CompilationMetrics m;
  m.compile_id = get_string(o, "compile_id").value_or("");
  m.co_name = get_string(o, "co_name").value_or("");
  m.co_filename = get_string(o, "co_filename").value_or("");
  m.co_firstlineno = get_int(o, "co_firstlineno");
  m.guard_count = get_int(o, "guard_count");
  m.shape_env_guard_count = get_int(o, "shape_env_guard_count");
  m.graph_op_count = get_int(o, "graph_op_count");
  m.graph_node_count = get_int(o, "graph_node_count");
  m.graph_input_count = get_int(o, "graph_input_count");
  m.entire_frame_compile_time_s = get_double(o, "entire_frame_compile_time_s");
  m.backend_compile_time_s = get_double(o, "backend_compile_time_s");
  m.inductor_compile_time_s = get_double(o, "inductor_compile_time_s");
  m.code_gen_time_s = get_double(o, "code_gen_time_s");
  m.dynamo_time_before_restart_s = get_double(o, "dynamo_time_before_restart_s");
  m.duration_us = get_int(o, "duration_us");
  m.fail_type = get_string(o, "fail_type");
  m.fail_reason = get_string(o, "fail_reason");
  m.fail_user_frame_filename = get_string(o, "fail_user_frame_filename");
  m.fail_user_frame_lineno = get_int(o, "fail_user_frame_lineno");
  if (const auto r = o.find("restart_reasons"); r != o.end() && r->is_array()) {
    for (const auto& reason : *r) {
      if (reason.is_string()) m.restart_reasons.push_back(reason.get<std::string>());
    }
  }
  m.has_guarded_code = get_bool(o, "has_guarded_code");
  m.is_forward = get_bool(o, "is_forward");
  m.guard_latency_us = get_int(o, "guard_latency_us");
  m.pre_grad_pass_time_us = get_int(o, "pre_grad_pass_time_us");
  m.joint_graph_pass_time_us = get_int(o, "joint_graph_pass_time_us");
  m.post_grad_pass_time_us = get_int(o, "post_grad_pass_time_us");
  m.triton_compile_time_us = get_int(o, "triton_compile_time_us");
  m.compile_time_autotune_time_us = get_int(o, "compile_time_autotune_time_us");
  m.gc_time_us = get_int(o, "gc_time_us");
  m.structured_logging_overhead_us = get_int(o, "structured_logging_overhead_us");
  m.triton_kernel_compile_times = kernel_compile_times(o);
  m.fx_graph_cache = cache_counts(o, "inductor_fx");
  m.aot_autograd_cache = cache_counts(o, "aotautograd");
  m.cudagraph_skip_reason = get_string(o, "cudagraph_skip_reason");
  m.envelope = envelope;
  return m;
}

}  // namespace fxscope::trace
