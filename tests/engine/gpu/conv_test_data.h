#pragma once
// Random f32 data for a convolution spec, shared by the cuDNN and GEMM convolution tests.

#include <random>

#include "fxscope/gpu/cudnn_conv_check.h"

namespace fxscope::test {

// Values in [-1, 1) for every element each tensor's strides address, the same for a SEED.
inline gpu::ConvData random_conv_data(const gpu::ConvSpec& s, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  gpu::ConvData d;
  d.x.resize(gpu::strided_elements(s.x_sizes, s.x_strides));
  d.w.resize(gpu::strided_elements(s.w_sizes, s.w_strides));
  if (s.bias) d.bias.resize(static_cast<std::size_t>(s.out_sizes[1]));
  for (auto* v : {&d.x, &d.w, &d.bias}) {
    for (float& f : *v) f = u(rng);
  }
  return d;
}

}  // namespace fxscope::test
