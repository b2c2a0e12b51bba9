#pragma once
// Random f32 data for a convolution spec and the error measure, shared by the cuDNN and GEMM
// convolution tests.

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

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

// Norm-wise relative error of GOT (float or double) against WANT, as the engine compares modes
// with eager; 1e30 when the sizes differ.
template <class T>
double rel_err(const std::vector<T>& got, const std::vector<double>& want) {
  double diff = 0;
  double norm = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    const double d = static_cast<double>(got[i]) - want[i];
    diff += d * d;
    norm += want[i] * want[i];
  }
  return got.size() == want.size() ? std::sqrt(diff / std::max(norm, 1e-30)) : 1e30;
}

}  // namespace fxscope::test
