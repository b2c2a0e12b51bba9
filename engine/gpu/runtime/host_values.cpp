#include "fxscope/gpu/host_values.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace fxscope::gpu {
namespace {

template <class T>
T load(const std::byte* data, std::int64_t index) {
  T v;
  std::memcpy(&v, data + index * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <class T>
void store(std::byte* data, std::int64_t index, T v) {
  std::memcpy(data + index * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1f;
  const std::uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const float a = std::fabs(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (a >= 65520.0f) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (a < 6.103515625e-05f) {  // subnormal half: a multiple of 2^-24
    return static_cast<std::uint16_t>(sign |
                                      static_cast<std::uint16_t>(std::nearbyint(a * 16777216.0f)));
  }
  // Round to nearest even on the 13 dropped mantissa bits.
  const std::uint32_t ax = std::bit_cast<std::uint32_t>(a);
  const std::uint32_t rounded = ax + 0xfffu + ((ax >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (((rounded >> 23) - 112) << 10) |
                                    ((rounded >> 13) & 0x3ffu));
}

std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace

std::size_t element_bytes(std::string_view d) {
  if (d == "f32" || d == "i32") return 4;
  if (d == "f64" || d == "i64") return 8;
  if (d == "f16" || d == "bf16" || d == "i16") return 2;
  if (d == "i8" || d == "u8" || d == "b8") return 1;
  return 0;
}

bool is_floating(std::string_view d) {
  return d == "f32" || d == "f64" || d == "f16" || d == "bf16";
}

double read_element(std::string_view d, const std::byte* data, std::int64_t i) {
  if (d == "f32") return load<float>(data, i);
  if (d == "f64") return load<double>(data, i);
  if (d == "f16") return half_to_float(load<std::uint16_t>(data, i));
  if (d == "bf16") {
    return std::bit_cast<float>(static_cast<std::uint32_t>(load<std::uint16_t>(data, i)) << 16);
  }
  if (d == "i64") return static_cast<double>(load<std::int64_t>(data, i));
  if (d == "i32") return load<std::int32_t>(data, i);
  if (d == "i16") return load<std::int16_t>(data, i);
  if (d == "i8") return load<std::int8_t>(data, i);
  return load<std::uint8_t>(data, i);  // u8, b8
}

void write_element(std::string_view d, std::byte* data, std::int64_t i, double v) {
  if (d == "f32") return store<float>(data, i, static_cast<float>(v));
  if (d == "f64") return store<double>(data, i, v);
  if (d == "f16") return store<std::uint16_t>(data, i, float_to_half(static_cast<float>(v)));
  if (d == "bf16") return store<std::uint16_t>(data, i, float_to_bf16(static_cast<float>(v)));
  if (d == "i64") return store<std::int64_t>(data, i, static_cast<std::int64_t>(v));
  if (d == "i32") return store<std::int32_t>(data, i, static_cast<std::int32_t>(v));
  if (d == "i16") return store<std::int16_t>(data, i, static_cast<std::int16_t>(v));
  if (d == "i8") return store<std::int8_t>(data, i, static_cast<std::int8_t>(v));
  if (d == "b8") return store<std::uint8_t>(data, i, v != 0.0 ? 1 : 0);
  store<std::uint8_t>(data, i, static_cast<std::uint8_t>(v));
}

double tolerance(std::string_view d) {
  if (d == "f32") return 1e-3;
  if (d == "f64") return 1e-9;
  if (d == "f16") return 1e-2;
  if (d == "bf16") return 3e-2;
  return 0.0;  // integers and booleans must match exactly
}

}  // namespace fxscope::gpu
