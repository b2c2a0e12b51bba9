#pragma once
// What the attention kernel tests share: dense operands of a given shape, and 16-bit floats
// made and read on the host (round to nearest even; f16 subnormals included, no overflow).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "fxscope/gpu/attention_kernel.h"

namespace fxscope::test {

// A contiguous [B, H, R, C] operand of DTYPE standing for NODE.
inline gpu::AttentionTensor dense_attention_tensor(std::int64_t b, std::int64_t h, std::int64_t r,
                                                   std::int64_t c, const std::string& dtype,
                                                   graph::NodeId node = 0) {
  gpu::AttentionTensor t;
  t.node = node;
  t.dtype = dtype;
  t.sizes = {b, h, r, c};
  t.strides = {h * r * c, r * c, c, 1};
  return t;
}

// F as bf16 (BF16) or f16 bits.
inline std::uint16_t half_bits(float f, bool bf16) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  if (bf16) return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  const std::uint32_t sign = f < 0 ? 0x8000u : 0u;
  const float a = std::fabs(f);
  if (a < std::ldexp(1.0f, -14)) {  // a subnormal: a multiple of 2^-24
    return static_cast<std::uint16_t>(
        sign | static_cast<std::uint32_t>(std::nearbyint(std::ldexp(a, 24))));
  }
  int e = 0;
  const float m = std::frexp(a, &e);                 // a = m * 2^e, m in [0.5, 1)
  float scaled = std::nearbyint(std::ldexp(m, 11));  // the implicit one and 10 bits
  if (scaled >= 2048.0f) {
    scaled /= 2.0f;
    ++e;
  }
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(e - 1 + 15) << 10) |
                                    (static_cast<std::uint32_t>(scaled) & 0x3ffu));
}

// The value of bf16 (BF16) or f16 bits B.
inline double half_value(std::uint16_t b, bool bf16) {
  if (bf16) {
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f = 0;
    std::memcpy(&f, &u, 4);
    return f;
  }
  const int e = (b >> 10) & 0x1f;
  const double m = b & 0x3ff;
  const double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1.0 + m / 1024.0, e - 15);
  return (b & 0x8000) ? -v : v;
}

}  // namespace fxscope::test
