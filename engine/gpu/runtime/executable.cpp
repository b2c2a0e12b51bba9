// An Executable's launches: directly, captured into a CUDA graph, or one step at a time to find
// the first NaN; and its outputs read back. Building it is executable_build.cpp.
#include "runtime/executable.h"

#include <cmath>

#include "runtime/executable_impl.h"

namespace fxscope::gpu {

Executable::~Executable() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
  if (!impl_) return;
  impl_->callees.clear();
  impl_->gemms.clear();
  impl_->convs.clear();
  impl_->images.clear();
  destroy_cublaslt_handle(impl_->lt);
  for (void* p : impl_->allocations) cudaFree(p);
}

std::string Executable::launch(cudaStream_t stream, CuptiActivity* tagger, bool check,
                               const std::function<void(std::size_t)>& after_step) {
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    if (tagger) tagger->push_step(i);
    std::string err = launches_[i](stream);
    if (tagger) tagger->pop_step();
    if (err.empty() && check) {
      if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
        const StepPlan& step = steps_.steps[i];
        err = "group " + std::to_string(step.group) + " " + step.group_name + " (kernel " +
              step.name + "): " + cuda_text(e);
      } else if (after_step) {
        after_step(i);
      }
    }
    if (!err.empty()) return err;
  }
  return "";
}

std::string Executable::capture(cudaStream_t stream) {
  if (const cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
      e != cudaSuccess) {
    return "cannot start a CUDA graph capture: " + cuda_text(e);
  }
  const std::string err = launch(stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph_);
  if (!err.empty()) return "during CUDA graph capture: " + err;
  if (end != cudaSuccess) return "CUDA graph capture failed: " + cuda_text(end);
  if (const cudaError_t e = cudaGraphInstantiate(&exec_, graph_, 0); e != cudaSuccess) {
    exec_ = nullptr;
    return "cannot instantiate the CUDA graph: " + cuda_text(e);
  }
  return "";
}

std::string Executable::replay(cudaStream_t stream) {
  const cudaError_t e = cudaGraphLaunch(exec_, stream);
  return e == cudaSuccess ? "" : "CUDA graph launch failed: " + cuda_text(e);
}

std::pair<const void*, std::size_t> Executable::largest_output(std::size_t i) const {
  std::pair<const void*, std::size_t> best{nullptr, 0};
  for (const graph::NodeId n : steps_.steps.at(i).writes) {
    const auto& meta = impl_->graph->node(n).meta;
    const char* p = impl_->pointer(n);
    if (!meta || meta->is_sym_scalar() || p == nullptr) continue;
    const std::size_t bytes = storage_bytes(*meta, impl_->hints);
    if (bytes > best.second) best = {p, bytes};
  }
  return best;
}

char* Executable::device_pointer(graph::NodeId node) const {
  return impl_->pointer(node);
}

std::optional<std::vector<std::byte>> Executable::read_value(graph::NodeId node) const {
  const auto& meta = impl_->graph->node(node).meta;
  const char* p = impl_->pointer(node);
  if (!meta || meta->is_sym_scalar() || p == nullptr || element_bytes(meta->dtype) == 0) {
    return std::nullopt;
  }
  std::vector<std::byte> host(storage_bytes(*meta, impl_->hints));
  if (cudaMemcpy(host.data(), p, host.size(), cudaMemcpyDeviceToHost) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return host;
}

Result<std::vector<HostOutput>> Executable::read_outputs(cudaStream_t stream) const {
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    return make_error("before reading outputs: " + cuda_text(e));
  }
  std::vector<HostOutput> out;
  const std::vector<std::string> computed_in = computed_in_dtypes(*impl_->graph);
  for (const graph::NodeId n : output_nodes(*impl_->graph)) {
    HostOutput h;
    // The node whose buffer holds it: a gradient returned as a view of a sum is judged as the
    // sum (ValueDigest::terms_abs_sum).
    h.node = impl_->graph->node(impl_->locate(n).base).name;
    h.computed_in = computed_in[n];
    const auto& meta = impl_->graph->node(n).meta;
    char* p = impl_->pointer(n);
    if (meta && !meta->is_sym_scalar() && p) {
      h.meta = *meta;
      h.bytes.resize(storage_bytes(*meta, impl_->hints));
      if (const cudaError_t e =
              cudaMemcpy(h.bytes.data(), p, h.bytes.size(), cudaMemcpyDeviceToHost);
          e != cudaSuccess) {
        return make_error("output " + impl_->graph->node(n).name + ": " + cuda_text(e));
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::string Executable::first_nonfinite(cudaStream_t stream) {
  const graph::Graph& g = *impl_->graph;
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    if (!launches_[i](stream).empty() || cudaStreamSynchronize(stream) != cudaSuccess) return "";
    const StepPlan& step = steps_.steps[i];
    for (const graph::NodeId n : step.writes) {
      const auto& meta = g.node(n).meta;
      if (!meta || !is_floating(meta->dtype)) continue;
      const auto host = read_value(n);
      if (!host) continue;
      const auto count = static_cast<std::int64_t>(host->size() / element_bytes(meta->dtype));
      for (std::int64_t e = 0; e < count; ++e) {
        if (std::isnan(read_element(meta->dtype, host->data(), e))) {
          return "group " + std::to_string(step.group) + " " + step.group_name +
                 " wrote a NaN into " + g.node(n).name;
        }
      }
    }
  }
  return "";
}

}  // namespace fxscope::gpu
