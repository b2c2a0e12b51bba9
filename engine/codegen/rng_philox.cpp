// Philox4x32-10 twice: on the host (the reference the tests check against Random123's
// known-answer vectors) and as the CUDA C text the generated kernels evaluate. Both spell the
// same rounds with the same constants, and the float conversions use exact integer arithmetic,
// so 'rand' agrees bit for bit between the two.

#include <cmath>
#include <numbers>

#include "fxscope/codegen/rng.h"
#include "rng_value.h"

namespace fxscope::codegen {
namespace {

constexpr std::uint32_t kMul0 = 0xD2511F53u;
constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;
constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;
// 2^-24: a 24-bit integer times this is exact in float.
constexpr float kUnit = 5.9604644775390625e-08f;

std::array<std::uint32_t, 4> philox_at(std::uint64_t seed, std::uint64_t index) {
  return philox4x32_10(
      {static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), 0u, 0u},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

}  // namespace

std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> c,
                                           std::array<std::uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
    k[0] += kWeyl0;
    k[1] += kWeyl1;
  }
  return c;
}

float rng_uniform(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(philox_at(seed, index)[0] >> 8) * kUnit;
}

float rng_normal(std::uint64_t seed, std::uint64_t index) {
  const auto w = philox_at(seed, index);
  const float u1 = (static_cast<float>(w[0] >> 8) + 1.0f) * kUnit;  // (0, 1]: log is finite
  const float u2 = static_cast<float>(w[1] >> 8) * kUnit;
  return std::sqrt(-2.0f * std::log(u1)) *
         static_cast<float>(std::cos(2.0 * std::numbers::pi * u2));
}

std::string philox_expression(const std::string& seed, const std::string& index, bool normal) {
  // A lambda keeps the generator one expression the value emitter can declare, with no helper
  // in the prelude; inside a kernel it is a device lambda.
  std::string e =
      "[](unsigned long long fx_seed, unsigned long long fx_ctr) {\n"
      "    unsigned c0 = (unsigned)fx_ctr, c1 = (unsigned)(fx_ctr >> 32), c2 = 0u, c3 = 0u;\n"
      "    unsigned k0 = (unsigned)fx_seed, k1 = (unsigned)(fx_seed >> 32);\n"
      "    for (int r = 0; r < 10; ++r) {  // Philox4x32-10\n"
      "      const unsigned h0 = __umulhi(0xD2511F53u, c0), l0 = 0xD2511F53u * c0;\n"
      "      const unsigned h1 = __umulhi(0xCD9E8D57u, c2), l1 = 0xCD9E8D57u * c2;\n"
      "      c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0;\n"
      "      k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;\n"
      "    }\n";
  if (normal) {
    e += "    const float u1 = ((float)(c0 >> 8) + 1.0f) * 5.9604644775390625e-08f;\n"
         "    const float u2 = (float)(c1 >> 8) * 5.9604644775390625e-08f;\n"
         "    return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);\n";
  } else {
    e += "    return (float)(c0 >> 8) * 5.9604644775390625e-08f;\n";
  }
  return e + "  }((unsigned long long)(" + seed + "), (unsigned long long)(" + index + "))";
}

}  // namespace fxscope::codegen
