#pragma once
// One convolution run on the local GPU through both of cuDNN's APIs, on the same f32 data: what
// the engine runs (planned once through the graph API) and the legacy cudnnConvolutionForward.
// For tests (both outputs against a reference) and bench_cudnn_conv (host time per call).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"

namespace fxscope::gpu {

// Each tensor's storage as its strides address it (bias empty when the spec has none).
struct ConvData {
  std::vector<float> x, w, bias;
};

struct CudnnConvCheck {
  std::string engine;  // what the engine runs: "graph engine 27 (instant heuristics)" ...
  std::size_t workspace_bytes = 0;
  std::vector<float> out, legacy_out;  // the output's storage, from each API
  // Median over batches of host time per launch (launches queued, not waited for), and of
  // device time per launch (CUDA events around a batch).
  double host_us = 0, legacy_host_us = 0;
  double device_us = 0, legacy_device_us = 0;
  // With tuning asked for: max-autotune's pick (CudnnConv::tune), "" when it had no choice.
  std::string tuned;
};

// Elements a tensor of SIZES and STRIDES spans.
std::size_t strided_elements(const std::vector<std::int64_t>& sizes,
                             const std::vector<std::int64_t>& strides);

// SPEC in f32; CALLS launches per timed batch; TUNE: as max-autotune, the engine runs the fastest
// of the plans cuDNN's heuristics rank. The error says "no CUDA device" where none is.
Result<CudnnConvCheck> check_cudnn_conv(const ConvSpec& spec, const ConvData& data, int calls,
                                        bool tune = false);

}  // namespace fxscope::gpu
