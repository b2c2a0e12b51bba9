#pragma once
// Tensor elements on the host in the dtypes FX prints (f32, f16, bf16, f64, i64, i32, i16, i8,
// u8, b8): read any of them as a double and write a double into any of them, so random inputs and
// output comparison need one code path for all dtypes.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fxscope::gpu {

// Bytes per element; 0 for a dtype this runtime does not handle (complex, f8 ...).
std::size_t element_bytes(std::string_view dtype);
bool is_floating(std::string_view dtype);

double read_element(std::string_view dtype, const std::byte* data, std::int64_t index);
void write_element(std::string_view dtype, std::byte* data, std::int64_t index, double value);

// Relative error a fused mode may have against eager: reductions and GEMMs reorder sums.
double tolerance(std::string_view dtype);

}  // namespace fxscope::gpu
