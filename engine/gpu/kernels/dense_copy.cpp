#include "fxscope/gpu/dense_copy.h"

#include <algorithm>
#include <numeric>

namespace fxscope::gpu {

std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& sizes,
                                        bool channels_last) {
  const std::size_t rank = sizes.size();
  std::vector<std::int64_t> strides(rank, 1);
  // The order from innermost: channels-last puts dim 1 first, then the spatial dims, then 0.
  std::vector<std::size_t> order(rank);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::reverse(order.begin(), order.end());
  if (channels_last && rank >= 4) {
    order.clear();
    order.push_back(1);
    for (std::size_t d = rank - 1; d >= 2; --d) order.push_back(d);
    order.push_back(0);
  }
  std::int64_t step = 1;
  for (const std::size_t d : order) {
    strides[d] = step;
    step *= std::max<std::int64_t>(sizes[d], 1);
  }
  return strides;
}

bool same_layout(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides,
                 const std::vector<std::int64_t>& want) {
  if (strides.size() != sizes.size() || want.size() != sizes.size()) return false;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1 && strides[d] != want[d]) return false;
  }
  return true;
}

bool lies_channels_last(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& strides) {
  if (sizes.size() < 4) return false;
  return same_layout(sizes, strides, dense_strides(sizes, true)) &&
         !same_layout(sizes, strides, dense_strides(sizes, false));
}

std::string dense_copy_source() {
  return R"(
struct fx_dense_shape {
  long long n;
  int rank;
  long long sizes[5];
  long long src[5];
  long long dst[5];
};
template <class T>
__device__ __forceinline__ void fx_dense_copy(const T* __restrict__ src, T* __restrict__ dst,
                                              const fx_dense_shape& s) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.n;
       i += (long long)gridDim.x * blockDim.x) {
    long long rest = i, from = 0, to = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      const long long c = rest % s.sizes[d];
      rest /= s.sizes[d];
      from += c * s.src[d];
      to += c * s.dst[d];
    }
    dst[to] = src[from];
  }
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_dense_copy_1(const unsigned char* src, unsigned char* dst, fx_dense_shape s) {
  fx_dense_copy(src, dst, s);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_dense_copy_2(const unsigned short* src, unsigned short* dst, fx_dense_shape s) {
  fx_dense_copy(src, dst, s);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_dense_copy_4(const unsigned int* src, unsigned int* dst, fx_dense_shape s) {
  fx_dense_copy(src, dst, s);
}
extern "C" __global__ void __launch_bounds__(256)
fxscope_dense_copy_8(const unsigned long long* src, unsigned long long* dst, fx_dense_shape s) {
  fx_dense_copy(src, dst, s);
}
)";
}

std::string dense_copy_entry(std::size_t element_bytes) {
  switch (element_bytes) {
    case 1:
    case 2:
    case 4:
    case 8:
      return "fxscope_dense_copy_" + std::to_string(element_bytes);
    default:
      return "";
  }
}

}  // namespace fxscope::gpu
