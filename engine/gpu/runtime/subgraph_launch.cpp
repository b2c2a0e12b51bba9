// A subgraph step's launch: torch.cond's predicate on the host, then the callee's executable
// between copies of its inputs and outputs.

#include "runtime/subgraph_launch.h"

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "runtime/cuda_status.h"

namespace fxscope::gpu {
namespace {

// A device-to-device copy of one buffer: what a launch moves between the enclosing executable
// and a callee's.
struct BufferCopy {
  const char* from = nullptr;
  char* to = nullptr;
  std::size_t bytes = 0;
};

// Bytes of NODE's storage; 0 for a symbolic scalar (a size, passed as a constant) or no meta.
std::size_t node_bytes(const graph::Graph& g, graph::NodeId node, const ops::SymbolHints& hints) {
  const auto& m = g.node(node).meta;
  return m ? storage_bytes(*m, hints) : 0;
}

struct BuiltCallee {
  Executable* exe = nullptr;
  std::vector<BufferCopy> in;
  std::vector<BufferCopy> out;
};

std::string run_copies(const std::vector<BufferCopy>& copies, cudaStream_t stream,
                       const std::string& where) {
  for (const BufferCopy& c : copies) {
    if (const cudaError_t e =
            cudaMemcpyAsync(c.to, c.from, c.bytes, cudaMemcpyDeviceToDevice, stream);
        e != cudaSuccess) {
      return where + ": copying a callee's input or output: " + cuda_text(e);
    }
  }
  return "";
}

}  // namespace

Result<StepLaunch> build_subgraph_launch(const graph::Graph& g, const StepPlan& step,
                                         const std::function<char*(graph::NodeId)>& pointer,
                                         const ExecutableOptions& options, cudaStream_t stream,
                                         std::vector<std::unique_ptr<Executable>>& callees,
                                         const std::string& where) {
  const SubgraphCall& call = *step.call;
  const ops::SymbolHints& hints = options.hints;
  const char* predicate = nullptr;
  std::size_t predicate_bytes = 0;
  if (call.predicate) {
    predicate = pointer(*call.predicate);
    predicate_bytes = node_bytes(g, *call.predicate, hints);
    if (predicate == nullptr || predicate_bytes == 0 || predicate_bytes > 8) {
      return make_error(where + ": its predicate " + g.node(*call.predicate).name +
                        " has no one-element buffer");
    }
    if (call.graphs.size() != 2) return make_error(where + ": expected two branches");
  } else if (call.graphs.size() != 1) {
    return make_error(where + ": expected one graph to call");
  }
  std::vector<BuiltCallee> built;
  for (const SubgraphCall::Callee& b : call.graphs) {
    const graph::Graph& sub = *b.graph;
    const std::vector<graph::NodeId> inputs = graph_inputs(sub);
    std::vector<std::vector<std::byte>> bytes;
    for (const graph::NodeId n : inputs) bytes.emplace_back(node_bytes(sub, n, hints));
    ExecutableOptions inner = options;
    if (options.progress) {
      inner.progress = [p = options.progress, name = b.name](const std::string& s) {
        p(name + ": " + s);
      };
    }
    auto exe = Executable::build(sub, *b.steps, bytes, inner, stream);
    if (!exe) return make_error(where + ": " + b.name + ": " + exe.error().message);
    if (!(*exe)->planned().skipped.empty()) {
      return make_error(where + ": " + b.name +
                        " cannot run: " + (*exe)->planned().skipped.front().why);
    }
    BuiltCallee r;
    r.exe = exe->get();
    if (inputs.size() != call.operands.size()) {
      return make_error(where + ": " + b.name + " takes " + std::to_string(inputs.size()) +
                        " inputs, the step passes " + std::to_string(call.operands.size()));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const std::size_t n = node_bytes(sub, inputs[i], hints);
      if (n == 0) continue;
      const char* from = pointer(call.operands[i]);
      char* to = r.exe->device_pointer(inputs[i]);
      if (from == nullptr || to == nullptr || node_bytes(g, call.operands[i], hints) != n) {
        return make_error(where + ": operand " + g.node(call.operands[i]).name +
                          " does not match " + b.name + "'s input " + sub.node(inputs[i]).name);
      }
      r.in.push_back({from, to, n});
    }
    const std::vector<graph::NodeId> outputs = output_nodes(sub);
    for (std::size_t k = 0; k < outputs.size() && k < call.results.size(); ++k) {
      if (!call.results[k]) continue;
      const std::size_t n = node_bytes(sub, outputs[k], hints);
      const char* from = r.exe->device_pointer(outputs[k]);
      char* to = pointer(*call.results[k]);
      if (from == nullptr || to == nullptr || node_bytes(g, *call.results[k], hints) != n) {
        return make_error(where + ": " + b.name + "'s output " + sub.node(outputs[k]).name +
                          " does not match " + g.node(*call.results[k]).name);
      }
      r.out.push_back({from, to, n});
    }
    built.push_back(std::move(r));
    callees.push_back(std::move(*exe));
  }
  return StepLaunch([built, predicate, predicate_bytes, where](cudaStream_t st) -> std::string {
    std::size_t taken = 0;
    if (predicate != nullptr) {
      cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
      cudaStreamIsCapturing(st, &capturing);
      if (capturing != cudaStreamCaptureStatusNone) {
        return where +
               ": torch.cond chooses its branch on the host, which a CUDA graph cannot hold";
      }
      unsigned char value[8] = {};
      if (const cudaError_t e =
              cudaMemcpyAsync(value, predicate, predicate_bytes, cudaMemcpyDeviceToHost, st);
          e != cudaSuccess) {
        return where + ": reading the predicate: " + cuda_text(e);
      }
      if (const cudaError_t e = cudaStreamSynchronize(st); e != cudaSuccess) {
        return where + ": reading the predicate: " + cuda_text(e);
      }
      bool value_true = false;
      for (std::size_t i = 0; i < predicate_bytes; ++i) value_true = value_true || value[i] != 0;
      taken = value_true ? 0 : 1;
    }
    const BuiltCallee& b = built[taken];
    if (std::string e = run_copies(b.in, st, where); !e.empty()) return e;
    if (std::string e = b.exe->launch(st); !e.empty()) return where + ": " + e;
    return run_copies(b.out, st, where);
  });
}

}  // namespace fxscope::gpu
