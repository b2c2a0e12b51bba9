#pragma once
// cuDNN gets dense operands only, as ATen gives them: cudnn_conv_suggest_memory_format picks
// channels-last where the input or the weight is channels-last, contiguous otherwise, and the
// input, the weight and the output's gradient are made .contiguous(that format) before the call
// (aten/src/ATen/native/cudnn/ConvShared.cpp). A graph's operand may lie otherwise (a gradient
// expanded from a mean's, a contiguous input beside a channels-last weight); cuDNN then finds no
// half-precision algorithm, or an engine computes from the wrong elements. Such an operand is
// copied into a dense buffer of the chosen format by the kernel below, before the call.

#include <cstdint>
#include <string>
#include <vector>

namespace fxscope::gpu {

// The strides of a dense tensor of SIZES: contiguous, or channels-last (rank 4 or 5).
std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& sizes, bool channels_last);
// Whether STRIDES address SIZES as WANT does (dims of size 1 may have any stride).
bool same_layout(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                 const std::vector<std::int64_t>& want);
// Whether SIZES/STRIDES lie channels-last: the channels innermost, then the spatial dims.
bool lies_channels_last(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& strides);

inline constexpr int kDenseCopyMaxRank = 5;
// The copy's shape argument, passed by value.
struct DenseCopyShape {
  long long n = 0;
  int rank = 0;
  long long sizes[kDenseCopyMaxRank] = {};
  long long src[kDenseCopyMaxRank] = {};
  long long dst[kDenseCopyMaxRank] = {};
};

// CUDA C of fxscope_dense_copy_<B>(const void* src, void* dst, DenseCopyShape) for elements of
// B = 1, 2, 4 and 8 bytes: element i of SIZES, read at its SRC strides, stored at its DST ones.
std::string dense_copy_source();
// "fxscope_dense_copy_2"; empty for another element size.
std::string dense_copy_entry(std::size_t element_bytes);

}  // namespace fxscope::gpu
