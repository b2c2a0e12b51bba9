#pragma once
// Dynamo's `compilation_metrics` record of one compile: times, sizes, failure and restarts.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/core/result.h"

namespace fxscope::trace {

// One Triton kernel's compile time (triton_kernel_compile_times_us). Kernels compile in parallel
// workers, so these do not add up to wall time.
struct KernelCompileTime {
  std::string kernel;
  std::int64_t us = 0;
};

// Hits and misses of one of Inductor's caches as Dynamo counted them for this compile.
struct CacheCounts {
  std::optional<std::int64_t> local_hits;
  std::optional<std::int64_t> local_misses;
  std::optional<std::int64_t> remote_hits;
  std::optional<std::int64_t> remote_misses;
};

// The fields users look at, typed; `envelope` keeps the whole JSON for everything else.
// Absent or null fields stay nullopt.
struct CompilationMetrics {
  std::string compile_id;  // as PyTorch wrote it ("0/0")
  std::string co_name;
  std::string co_filename;
  std::optional<std::int64_t> co_firstlineno;
  std::optional<std::int64_t> guard_count;
  std::optional<std::int64_t> shape_env_guard_count;
  std::optional<std::int64_t> graph_op_count;
  std::optional<std::int64_t> graph_node_count;
  std::optional<std::int64_t> graph_input_count;
  std::optional<double> entire_frame_compile_time_s;
  std::optional<double> backend_compile_time_s;
  std::optional<double> inductor_compile_time_s;
  std::optional<double> code_gen_time_s;
  std::optional<double> dynamo_time_before_restart_s;
  std::optional<std::int64_t> duration_us;
  std::optional<std::int64_t> guard_latency_us;
  std::optional<std::int64_t> pre_grad_pass_time_us;
  std::optional<std::int64_t> joint_graph_pass_time_us;
  std::optional<std::int64_t> post_grad_pass_time_us;
  std::optional<std::int64_t> triton_compile_time_us;
  std::optional<std::int64_t> compile_time_autotune_time_us;
  std::optional<std::int64_t> gc_time_us;
  std::optional<std::int64_t> structured_logging_overhead_us;  // what TORCH_TRACE itself cost
  std::vector<KernelCompileTime> triton_kernel_compile_times;  // log order
  CacheCounts fx_graph_cache;                                  // inductor_fx_*_cache_*_count
  CacheCounts aot_autograd_cache;                              // aotautograd_*_cache_*_count
  std::optional<std::string> cudagraph_skip_reason;
  std::optional<std::string> fail_type;
  std::optional<std::string> fail_reason;
  std::optional<std::string> fail_user_frame_filename;
  std::optional<std::int64_t> fail_user_frame_lineno;
  std::vector<std::string> restart_reasons;
  std::optional<bool> has_guarded_code;
  std::optional<bool> is_forward;
  std::size_t line = 0;  // 1-based line of the record in the log
  std::string_view envelope;

  bool failed() const { return fail_type.has_value(); }

  // Reads the metrics from an envelope JSON text whose kind object holds them (the kind may be
  // compilation_metrics, bwd_compilation_metrics, ...). The error says what was expected.
  static Result<CompilationMetrics> from_envelope(std::string_view envelope, std::string_view kind);
};

}  // namespace fxscope::trace
