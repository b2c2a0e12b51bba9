#pragma once
// One mode of one graph, ready to launch: inputs uploaded, buffers planned in one arena (dead
// buffers reused), kernels compiled and loaded, GEMMs and convolutions described. Steps launch
// in plan order on one stream, directly or captured once into a CUDA graph.

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cupti/cupti_activity.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// NVRTC: source -> a loadable image (cubin) and the name of its kernel there
// (CompiledKernel::entry_or); WHERE names the group in errors.
using CompileFn =
    std::function<Result<CompiledKernel>(const std::string& source, const std::string& where)>;

struct ExecutableOptions {
  ops::SymbolHints hints;
  CompileFn compile;
  bool tune = false;  // max-autotune: time variants and GEMM algorithms, keep the fastest
  std::function<void(const std::string&)> progress;
};

class Executable {
 public:
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  // INPUTS: host bytes for each of graph_inputs(GRAPH), in that order.
  static Result<std::unique_ptr<Executable>> build(
      const graph::Graph& graph, PlannedSteps steps,
      const std::vector<std::vector<std::byte>>& inputs, const ExecutableOptions& options,
      cudaStream_t stream);

  // Launches every step; with CUPTI, tags each launch with its step index. CHECK synchronises
  // after each step so that a fault names its group, and then hands AFTER_STEP (when set) the
  // step's index while its buffers hold what it wrote. Returns "" or the error.
  std::string launch(cudaStream_t stream, CuptiActivity* tagger = nullptr, bool check = false,
                     const std::function<void(std::size_t)>& after_step = {});
  // Captures the steps into a CUDA graph once; replay() then launches it.
  std::string capture(cudaStream_t stream);
  std::string replay(cudaStream_t stream);
  bool captured() const { return exec_ != nullptr; }
  // Launches step I alone, on what its buffers hold now (copy_in_place.h replays the step before
  // a kernel so; only steps that index by no data value are replayed so).
  std::string launch_step(std::size_t i, cudaStream_t stream) { return launches_.at(i)(stream); }
  // The largest buffer step I writes: its device address and bytes; nullptr when it has none.
  std::pair<const void*, std::size_t> largest_output(std::size_t i) const;

  Result<std::vector<HostOutput>> read_outputs(cudaStream_t stream) const;
  // NODE's storage as it is now (after a synchronisation); nullopt when it has no buffer or
  // meta, or the copy fails.
  std::optional<std::vector<std::byte>> read_value(graph::NodeId node) const;
  // Where NODE's elements start on the device (a view's within its base's buffer); nullptr when
  // it has no buffer.
  char* device_pointer(graph::NodeId node) const;
  // Runs the steps one at a time and names the first whose output holds a NaN ("group 3
  // triton_poi_fused_where_2 wrote a NaN into where_1"); "" when none does. Infinities are not
  // reported: masks hold -inf on purpose.
  std::string first_nonfinite(cudaStream_t stream);

  const std::vector<StepPlan>& steps() const { return steps_.steps; }
  const PlannedSteps& planned() const { return steps_; }
  std::size_t peak_bytes() const { return peak_bytes_; }
  std::size_t unplanned_bytes() const { return unplanned_bytes_; }
  const std::vector<std::string>& picks() const { return picks_; }

 private:
  Executable() = default;
  struct Impl;     // executable_impl.h
  struct Builder;  // executable_build.cpp: build()'s steps
  friend struct Builder;
  std::unique_ptr<Impl> impl_;
  PlannedSteps steps_;
  std::vector<std::function<std::string(cudaStream_t)>> launches_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t peak_bytes_ = 0;
  std::size_t unplanned_bytes_ = 0;
  std::vector<std::string> picks_;
};

}  // namespace fxscope::gpu
