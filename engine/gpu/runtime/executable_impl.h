#pragma once
// What an Executable holds on the device, shared by its building (executable_build.cpp) and its
// launching (executable.cpp).

#include <cublasLt.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cudnn/cudnn_conv.h"
#include "cudnn/cudnn_conv_backward.h"
#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "gemm/gemm_conv_runner.h"
#include "gemm/lt_gemm.h"
#include "kernels/kernel_image.h"
#include "runtime/cuda_status.h"
#include "runtime/executable.h"

namespace fxscope::gpu {

// Where a node's elements live: in the buffer of BASE (itself, or what it is a view of).
struct Location {
  graph::NodeId base = 0;
  std::int64_t offset = 0;  // elements
};

struct Executable::Impl {
  const graph::Graph* graph = nullptr;
  ops::SymbolHints hints;
  std::vector<void*> allocations;
  std::map<graph::NodeId, char*> base_ptr;  // buffer start of every node that owns memory
  cublasLtHandle_t lt = nullptr;
  void* gemm_workspace = nullptr;
  void* conv_workspace = nullptr;
  std::vector<std::unique_ptr<KernelImage>> images;
  std::vector<std::unique_ptr<LtGemm>> gemms;
  std::vector<std::unique_ptr<CudnnConv>> convs;
  std::vector<std::unique_ptr<CudnnConvBackward>> conv_backwards;
  std::vector<std::unique_ptr<GemmConv>> gemm_convs;
  std::vector<std::vector<void*>> arg_values;  // stable storage for kernel arguments
  // The graphs subgraph steps call (torch.cond's branches), each an executable of its own.
  std::vector<std::unique_ptr<Executable>> callees;

  Location locate(graph::NodeId node) const {
    if (const auto a = codegen::alias_of(*graph, node, hints)) return {a->base, a->offset};
    return {node, 0};
  }
  std::size_t element_size(graph::NodeId node) const {
    const auto& m = graph->node(node).meta;
    return m ? std::max<std::size_t>(element_bytes(m->dtype), 1) : 4;
  }
  char* pointer(graph::NodeId node) const {
    const Location l = locate(node);
    const auto it = base_ptr.find(l.base);
    if (it == base_ptr.end()) return nullptr;
    return it->second + l.offset * static_cast<std::int64_t>(element_size(l.base));
  }
  Result<void*> allocate(std::size_t bytes, const std::string& what) {
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 256)); e != cudaSuccess) {
      cudaGetLastError();
      return make_error("cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " +
                        cuda_text(e));
    }
    allocations.push_back(p);
    return p;
  }
};

}  // namespace fxscope::gpu
