#pragma once
// Convolutions on cuDNN, found at run time with dlopen (cudnn_library.h). Each one is planned once
// through the graph API (cudnn_graph_conv.h), so a call costs a few microseconds of host time;
// where the graph API plans no engine, the legacy API runs it (cudnn_legacy_conv.h). Without
// cuDNN a convolution's group is reported as "no cuDNN" and the rest of the plan still runs.
// FXSCOPE_CUDNN_LEGACY=1 forces the legacy API, to measure one against the other.

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>

#include "cudnn/cudnn_graph_conv.h"
#include "cudnn/cudnn_legacy_conv.h"
#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

class CudnnConv {
 public:
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  // The error is one line naming WHERE (the group), the convolution's shape and what cuDNN
  // refused. The workspace given to launch() must cover workspace_bytes().
  static Result<std::unique_ptr<CudnnConv>> create(const ConvSpec& spec, const std::string& where);
  std::size_t workspace_bytes() const;
  // What runs it: "graph engine 27 (instant heuristics)" or "legacy algorithm 1 (...)".
  const std::string& engine() const { return engine_; }
  // max-autotune: times the first CANDIDATES plans cuDNN's heuristics rank on these buffers (OUT
  // is written) and keeps the fastest, before workspace_bytes() is read. What it picked ("graph
  // engine 12 (instant heuristics), 8 plans timed: 50.21 us (heuristics' pick 108.30 us)"), or
  // nullopt where there was nothing to choose (one plan, or the legacy API).
  std::optional<std::string> tune(cudaStream_t stream, const void* x, const void* w,
                                  const void* bias, void* out, std::size_t candidates = 8);
  // "" on success, else the error naming the group.
  std::string launch(cudaStream_t stream, const void* x, const void* w, const void* bias, void* out,
                     void* workspace) const;

 private:
  CudnnConv() = default;
  const CudnnLibrary* lib_ = nullptr;
  std::unique_ptr<CudnnGraphConv> graph_;
  std::unique_ptr<CudnnLegacyConv> legacy_;
  std::string engine_;
  std::string where_;
};

// Where cuDNN was found ("" when it was not), for the report.
std::string cudnn_location();

}  // namespace fxscope::gpu
