#pragma once
// The kernel of one op, as eager plans it, from a one-op graph, and its run on the device: what
// the kernel tests of one op (a scan, nonzero) share.

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "kernels/kernel_image.h"

namespace fxscope::test {

// A graph of one input of META (an annotation: "f32[3, 4][4, 1]cuda:0") and one op, NAME of
// OUT_META = CALL (the op's call on arg0_1), which it returns.
inline graph::Graph one_op_graph(const std::string& meta, const std::string& name,
                                 const std::string& out_meta, const std::string& call) {
  const std::string code = "class GraphModule(torch.nn.Module):\n    def forward(self, arg0_1: \"" +
                           meta + "\"):\n        " + name + ": \"" + out_meta + "\" = " + call +
                           "\n        return (" + name + ",)\n";
  return graph::parse_fx_readable(code, name).graph;
}

// The kernel eager launches for node NAME of G: its own group.
inline Result<codegen::GeneratedKernel> eager_kernel(const graph::Graph& g,
                                                     const std::string& name) {
  fusion::KernelGroup group;
  group.name = name;
  group.kind = fusion::GroupKind::eager_op;
  group.nodes = {*g.find(name)};
  group.outputs = group.nodes;
  return codegen::generate(g, group, {});
}

// Why K does not compile with NVRTC for the default architecture (the cache bypassed), or ""
// when it does.
inline std::string nvrtc_error(const codegen::GeneratedKernel& k) {
  gpu::NvrtcOptions options;
  options.use_cache = false;
  const auto cubin = gpu::compile_cuda(k.source, k.entry, options);
  return cubin ? std::string() : cubin.error().message;
}

// Compiles K, copies IN and OUT (as it stands: what the kernel does not write stays) to the
// device, runs K on them and copies OUT back; false, with WHY, where a step fails.
template <class In, class Out>
bool run_on_device(const codegen::GeneratedKernel& k, const std::vector<In>& in,
                   std::vector<Out>& out, std::string& why) {
  const auto cubin = gpu::compile_cuda(k.source, k.entry, {});
  if (!cubin) {
    why = cubin.error().message;
    return false;
  }
  auto image = gpu::KernelImage::load(cubin->cubin, k.entry, k.entry);
  if (!image) {
    why = image.error().message;
    return false;
  }
  const std::size_t in_bytes = in.size() * sizeof(In);
  const std::size_t out_bytes = out.size() * sizeof(Out);
  void* d_in = nullptr;
  void* d_out = nullptr;
  bool ok = false;
  if (cudaMalloc(&d_in, in_bytes) != cudaSuccess || cudaMalloc(&d_out, out_bytes) != cudaSuccess ||
      cudaMemcpy(d_in, in.data(), in_bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(d_out, out.data(), out_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    why = "cudaMalloc or the copies to the device failed";
  } else {
    // The parameters in the kernel's order: the input read, the output written.
    std::vector<void*> pointers;
    for (const auto& p : k.params) pointers.push_back(p.written ? d_out : d_in);
    std::vector<void*> args;
    for (auto& p : pointers) args.push_back(&p);
    ok = (*image)->launch(k.grid, k.config.block, k.shared_bytes, args.data(), nullptr) ==
             cudaSuccess &&
         cudaDeviceSynchronize() == cudaSuccess &&
         cudaMemcpy(out.data(), d_out, out_bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
    if (!ok) why = "the launch or the copy back failed";
  }
  cudaFree(d_in);
  cudaFree(d_out);
  return ok;
}

}  // namespace fxscope::test
