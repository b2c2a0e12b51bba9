// ResNet-50's two kernels nearest the 70% line of a same-size copy kernel: forms
// timed by bench_memory_kernels (all of it, or `bench_memory_kernels resnet` for these alone).
//
// The stem pool's forms on the H200, `BENCH_WARM=1` (reads from L2, as in the model),
// median of 30 (from memory in brackets):
//   generated per output (pool_gen<256, true>)       2.72 us  (3.36-3.65)
//   same, fmaxf and IEEE sqrt (pool_gen<256>)         2.72      block 512: 2.66
//   scale and shift once, __frsqrt_rn (pool_fast)     2.59      block 512: 2.50
//   two outputs side by side (pool_pair)              2.62
//   float2 row reads, six loads (pool_f2)             3.01
//   shuffled: float2 a lane, left column by shuffle   3.52-3.84 (4.19-4.42)
//   shuffled, float4 and two outputs a lane           3.07-3.23
//   staged in shared memory, 4 / 8 / 14 rows a block  2.46 / 2.94 / 3.39
// So the shuffles lose (lane 0's extra reads and the shuffles sit between load and use) and the
// staged form wins: the code generator writes that (codegen/staged_pool_kernel.cpp). In the model
// it takes 2.58-2.59 us in default against 2.88 per output.
#include <cstring>
#include <vector>

#include "harness.h"
#include "resnet_misses.h"

namespace fxbench {
namespace {

// ---- a double batch norm + add + ReLU over 2048 planes of 7x7 ----
struct DbnArgs {
  const float* x[2];
  const float* mean[2];
  const float* var[2];
  const float* w[2];
  const float* b[2];
  float* sum;   // bn(x0) + bn(x1)
  float* relu;  // relu(sum)
  int n;        // C * 49
};
constexpr int kHw7 = 49;
__device__ __forceinline__ float bn_at(const DbnArgs& p, int k, int c, float x) {
  return (x - p.mean[k][c]) * (1.0f / sqrtf(p.var[k][c] + 1e-5f)) * p.w[k][c] + p.b[k][c];
}
// As generated: an element a thread, ITEMS of them a block apart.
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) dbn_scalar(DbnArgs p) {
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int i = blockIdx.x * BLOCK * ITEMS + k * BLOCK + threadIdx.x;
    if (i >= p.n) return;
    const int c = i / kHw7;
    const float s = bn_at(p, 0, c, p.x[0][i]) + bn_at(p, 1, c, p.x[1][i]);
    p.sum[i] = s;
    p.relu[i] = fmaxf(s, 0.0f);
  }
}
// float4 a thread, each lane reading its own channel's numbers.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) dbn_lanes(DbnArgs p) {
  const int t = blockIdx.x * BLOCK + threadIdx.x;
  if (t * 4 >= p.n) return;
  const float4 a = reinterpret_cast<const float4*>(p.x[0])[t];
  const float4 b = reinterpret_cast<const float4*>(p.x[1])[t];
  const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
  float s[4], r[4];
#pragma unroll
  for (int l = 0; l < 4; ++l) {
    const int c = (t * 4 + l) / kHw7;
    s[l] = bn_at(p, 0, c, av[l]) + bn_at(p, 1, c, bv[l]);
    r[l] = fmaxf(s[l], 0.0f);
  }
  reinterpret_cast<float4*>(p.sum)[t] = make_float4(s[0], s[1], s[2], s[3]);
  reinterpret_cast<float4*>(p.relu)[t] = make_float4(r[0], r[1], r[2], r[3]);
}
// float4 a thread; its four lanes span at most two channels (49 >= 4), the first lane's and the
// last lane's. SHARED: each channel's scale and shift computed once and selected per lane; else
// each lane selects between the two channels' loaded numbers and does its own math.
template <int BLOCK, bool SHARED>
__global__ void __launch_bounds__(BLOCK) dbn_two(DbnArgs p) {
  const int t = blockIdx.x * BLOCK + threadIdx.x;
  if (t * 4 >= p.n) return;
  const float4 a = reinterpret_cast<const float4*>(p.x[0])[t];
  const float4 b = reinterpret_cast<const float4*>(p.x[1])[t];
  const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
  const int c0 = (t * 4) / kHw7, c3 = (t * 4 + 3) / kHw7;
  float s[4], r[4];
  if (SHARED) {
    float sc[2][2], sh[2][2];
#pragma unroll
    for (int k = 0; k < 2; ++k) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = e ? c3 : c0;
        sc[k][e] = (1.0f / sqrtf(p.var[k][c] + 1e-5f)) * p.w[k][c];
        sh[k][e] = p.b[k][c] - p.mean[k][c] * sc[k][e];
      }
    }
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const int e = (t * 4 + l) / kHw7 != c0;
      s[l] = av[l] * sc[0][e] + sh[0][e] + (bv[l] * sc[1][e] + sh[1][e]);
      r[l] = fmaxf(s[l], 0.0f);
    }
  } else {
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const bool first = (t * 4 + l) / kHw7 == c0;
      float v[2];
#pragma unroll
      for (int k = 0; k < 2; ++k) {
        const float m = first ? p.mean[k][c0] : p.mean[k][c3];
        const float va = first ? p.var[k][c0] : p.var[k][c3];
        const float w = first ? p.w[k][c0] : p.w[k][c3];
        const float bb = first ? p.b[k][c0] : p.b[k][c3];
        v[k] = ((k ? bv[l] : av[l]) - m) * (1.0f / sqrtf(va + 1e-5f)) * w + bb;
      }
      s[l] = v[0] + v[1];
      r[l] = fmaxf(s[l], 0.0f);
    }
  }
  reinterpret_cast<float4*>(p.sum)[t] = make_float4(s[0], s[1], s[2], s[3]);
  reinterpret_cast<float4*>(p.relu)[t] = make_float4(r[0], r[1], r[2], r[3]);
}

// As dbn_scalar<256, 1> with cheaper square roots: MODE 0 rsqrtf (approximate), 1 __frsqrt_rn
// (one correctly rounded reciprocal square root), 2 __fsqrt_rn then __frcp_rn.
template <int MODE>
__device__ __forceinline__ float inv_std(float v) {
  if (MODE == 0) return rsqrtf(v);
  if (MODE == 1) return __frsqrt_rn(v);
  return __frcp_rn(__fsqrt_rn(v));
}
template <int MODE>
__global__ void __launch_bounds__(256) dbn_fast(DbnArgs p) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i >= p.n) return;
  const int c = i / kHw7;
  float s = 0;
#pragma unroll
  for (int k = 0; k < 2; ++k)
    s += (p.x[k][i] - p.mean[k][c]) * inv_std<MODE>(p.var[k][c] + 1e-5f) * p.w[k][c] + p.b[k][c];
  p.sum[i] = s;
  p.relu[i] = fmaxf(s, 0.0f);
}

// ---- the stem's batch norm + ReLU + 3x3/2 max-pool over 64 planes of 112x112 ----
struct PoolArgs {
  const float* x;  // 64 x 112 x 112
  const float* mean;
  const float* var;
  const float* w;
  const float* b;
  float* out;  // 64 x 56 x 56
};
__device__ __forceinline__ float bn_relu(const PoolArgs& p, int c, float x) {
  return fmaxf((x - p.mean[c]) * (1.0f / sqrtf(p.var[c] + 1e-5f)) * p.w[c] + p.b[c], 0.0f);
}
// What the generator writes, to the letter: rsqrtf, and a NaN-keeping max and ReLU (PyTorch's)
// rather than fmaxf, which would drop a NaN.
__device__ __forceinline__ float nan_max(float m, float v) {
  return (v > m || v != v) ? v : m;
}
__device__ __forceinline__ float bn_relu_r(const PoolArgs& p, int c, float x) {
  const float y = (x - p.mean[c]) * rsqrtf(p.var[c] + 1e-5f) * p.w[c] + p.b[c];
  return (y != y || y > 0.0f) ? y : 0.0f;
}
// EXACT: as bn_relu_r; else IEEE square root and division, fmaxf.
template <bool EXACT = false>
__device__ __forceinline__ float pool_in(const PoolArgs& p, int c, int ih, int iw) {
  const bool inside = ih >= 0 && ih < 112 && iw >= 0 && iw < 112;
  const float x = p.x[c * 12544 + (inside ? ih : 0) * 112 + (inside ? iw : 0)];
  const float v = EXACT ? bn_relu_r(p, c, x) : bn_relu(p, c, x);
  return inside ? v : -INFINITY;
}
// Per output: an output a thread, its nine inputs each normalised.
// EXACT: the generator's arithmetic to the letter (see pool_in).
template <int BLOCK, bool EXACT = false>
__global__ void __launch_bounds__(BLOCK) pool_gen(PoolArgs p) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= 64 * 3136) return;
  const int c = i / 3136, oh = (i / 56) % 56, ow = i % 56;
  float m = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < 3; ++kh)
#pragma unroll
    for (int kw = 0; kw < 3; ++kw) {
      const float v = pool_in<EXACT>(p, c, oh * 2 - 1 + kh, ow * 2 - 1 + kw);
      m = EXACT ? nan_max(m, v) : fmaxf(m, v);
    }
  p.out[i] = m;
}
// Two outputs side by side a thread: their windows share a column (15 reads, not 18).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) pool_pair(PoolArgs p) {
  const int t = blockIdx.x * BLOCK + threadIdx.x;
  if (t >= 64 * 3136 / 2) return;
  const int c = t / 1568, oh = (t / 28) % 56, ow = (t % 28) * 2;
  float m0 = -INFINITY, m1 = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < 3; ++kh) {
    const int ih = oh * 2 - 1 + kh;
    float v[5];
#pragma unroll
    for (int q = 0; q < 5; ++q) v[q] = pool_in(p, c, ih, ow * 2 - 1 + q);
    m0 = fmaxf(m0, fmaxf(v[0], fmaxf(v[1], v[2])));
    m1 = fmaxf(m1, fmaxf(v[2], fmaxf(v[3], v[4])));
  }
  reinterpret_cast<float2*>(p.out)[t] = make_float2(m0, m1);
}
// An output a thread, each window row read as one float (column 2ow-1) and one float2 (2ow, 2ow+1,
// 8-byte aligned): six loads, not nine.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) pool_f2(PoolArgs p) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= 64 * 3136) return;
  const int c = i / 3136, oh = (i / 56) % 56, ow = i % 56;
  float m = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < 3; ++kh) {
    const int ih = oh * 2 - 1 + kh;
    if (ih < 0 || ih >= 112) continue;
    const float* row = p.x + c * 12544 + ih * 112;
    const float2 pair = reinterpret_cast<const float2*>(row)[ow];
    m = fmaxf(m, fmaxf(bn_relu(p, c, pair.x), bn_relu(p, c, pair.y)));
    if (ow > 0) m = fmaxf(m, bn_relu(p, c, row[ow * 2 - 1]));
  }
  p.out[i] = m;
}

// Rows shared along the warp: output ow's window covers columns 2ow-1, 2ow, 2ow+1 of a row. Each
// lane reads its 2ow, 2ow+1 as one float2 (the warp 256 contiguous bytes), and takes 2ow-1, the
// column its left neighbour read last, by a shuffle; a lane whose neighbour is in another row
// (ow == 0: padding) or another warp (lane 0) reads it. Three 8-byte loads an output, not nine, and
// six normalisations, not nine. OUTS outputs a lane side by side (1: float2 loads, 2: float4).
// SCALAR: the two columns read by two float loads (what the generator can emit without knowing a
// buffer's alignment), not one float2.
template <int BLOCK, int OUTS, bool SCALAR = false>
__global__ void __launch_bounds__(BLOCK) pool_shfl(PoolArgs p) {
  const int t = blockIdx.x * BLOCK + threadIdx.x;  // 64*3136/OUTS is a multiple of 32: whole warps
  if (t >= 64 * 3136 / OUTS) return;
  constexpr int kPerRow = 56 / OUTS;
  const int c = t / (56 * kPerRow), oh = (t / kPerRow) % 56, q = t % kPerRow;  // ow = q * OUTS
  const int lane = threadIdx.x % 32;
  float m[OUTS];
#pragma unroll
  for (int o = 0; o < OUTS; ++o) m[o] = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < 3; ++kh) {
    const int ih = oh * 2 - 1 + kh;
    const bool row_in = ih >= 0 && ih < 112;
    const float* row = p.x + c * 12544 + (row_in ? ih : 0) * 112;
    float v[2 * OUTS];
    if (SCALAR) {
#pragma unroll
      for (int k = 0; k < 2 * OUTS; ++k) v[k] = row[q * 2 * OUTS + k];
    } else if (OUTS == 1) {
      const float2 a = reinterpret_cast<const float2*>(row)[q];
      v[0] = a.x, v[1] = a.y;
    } else {
      const float4 a = reinterpret_cast<const float4*>(row)[q];
      v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
    }
#pragma unroll
    for (int k = 0; k < 2 * OUTS; ++k) v[k] = row_in ? bn_relu_r(p, c, v[k]) : -INFINITY;
    float left = __shfl_up_sync(0xffffffffu, v[2 * OUTS - 1], 1);
    if (q == 0 || !row_in) {
      left = -INFINITY;
    } else if (lane == 0) {
      left = bn_relu_r(p, c, row[q * 2 * OUTS - 1]);
    }
#pragma unroll
    for (int o = 0; o < OUTS; ++o)
      m[o] = nan_max(nan_max(nan_max(m[o], o ? v[2 * o - 1] : left), v[2 * o]), v[2 * o + 1]);
  }
  if (OUTS == 1) {
    p.out[t] = m[0];
  } else {
    reinterpret_cast<float2*>(p.out)[t] = make_float2(m[0], m[1]);
  }
}

// The same with one correctly rounded reciprocal square root.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) pool_fast(PoolArgs p) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i >= 64 * 3136) return;
  const int c = i / 3136, oh = (i / 56) % 56, ow = i % 56;
  const float sc = __frsqrt_rn(p.var[c] + 1e-5f) * p.w[c], sh = p.b[c] - p.mean[c] * sc;
  float m = -INFINITY;
#pragma unroll
  for (int kh = 0; kh < 3; ++kh)
#pragma unroll
    for (int kw = 0; kw < 3; ++kw) {
      const int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
      const bool inside = ih >= 0 && ih < 112 && iw >= 0 && iw < 112;
      const float x = p.x[c * 12544 + (inside ? ih : 0) * 112 + (inside ? iw : 0)];
      m = fmaxf(m, inside ? fmaxf(x * sc + sh, 0.0f) : -INFINITY);
    }
  p.out[i] = m;
}
// A block's R output rows of one channel: the 2R+1 input rows under them read once in 16-byte
// words, normalised once each into shared memory, then each output's window read from there.
template <int R>
__global__ void __launch_bounds__(256) pool_staged(PoolArgs p) {
  __shared__ float tile[2 * R + 1][112];
  constexpr int kTiles = 56 / R;
  const int c = blockIdx.x / kTiles, r0 = (blockIdx.x % kTiles) * R;
  for (int e = threadIdx.x; e < (2 * R + 1) * 28; e += 256) {
    const int row = e / 28, q = e % 28, ih = 2 * r0 - 1 + row;
    float4 v = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    if (ih >= 0 && ih < 112) {
      v = reinterpret_cast<const float4*>(p.x + c * 12544 + ih * 112)[q];
      v = make_float4(bn_relu(p, c, v.x), bn_relu(p, c, v.y), bn_relu(p, c, v.z),
                      bn_relu(p, c, v.w));
    }
    reinterpret_cast<float4*>(&tile[row][0])[q] = v;
  }
  __syncthreads();
  for (int o = threadIdx.x; o < R * 56; o += 256) {
    const int orow = o / 56, ow = o % 56;
    float m = -INFINITY;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh) {
      const float* row = tile[orow * 2 + kh];
      m = fmaxf(m, fmaxf(row[ow * 2], row[ow * 2 + 1]));
      if (ow > 0) m = fmaxf(m, row[ow * 2 - 1]);
    }
    p.out[c * 3136 + (r0 + orow) * 56 + ow] = m;
  }
}

}  // namespace

void resnet_misses(Word* const* rs, Word* const* rd) {
  {
    constexpr int C = 2048, n = C * kHw7;
    std::vector<DbnArgs> sets(kSets);
    for (auto& p : sets) {
      for (int k = 0; k < 2; ++k) {
        p.x[k] = device_floats(n);
        p.mean[k] = device_floats(C);
        p.var[k] = device_floats(C);
        p.w[k] = device_floats(C);
        p.b[k] = device_floats(C);
      }
      p.sum = device_floats(n);
      p.relu = device_floats(n);
      p.n = n;
    }
    const double bytes = 4.0 * n * 4 + 8.0 * C * 4;
    const Refs refs = references(bytes, rs, rd);
    const auto form = [&](auto kernel, int threads, int block, const char* name, const char* what) {
      repeat([&](int s) { kernel<<<(threads + block - 1) / block, block>>>(sets[s]); });
      print(what, bytes, take(name), refs);
    };
    form(dbn_scalar<256, 1>, n, 256, "dbn_scalarILi256ELi1E", "2BN 2048x49 scalar 256 (generated)");
    form(dbn_scalar<128, 1>, n, 128, "dbn_scalarILi128ELi1E", "2BN scalar 128");
    form(dbn_scalar<128, 2>, n / 2, 128, "dbn_scalarILi128ELi2E", "2BN scalar 128 x 2");
    form(dbn_lanes<256>, n / 4, 256, "dbn_lanesILi256E", "2BN float4 lanes apart 256 (old)");
    form(dbn_lanes<64>, n / 4, 64, "dbn_lanesILi64E", "2BN float4 lanes apart 64");
    form(dbn_two<256, true>, n / 4, 256, "dbn_twoILi256ELb1E",
         "2BN float4 two channels shared 256");
    form(dbn_two<128, true>, n / 4, 128, "dbn_twoILi128ELb1E",
         "2BN float4 two channels shared 128");
    form(dbn_two<64, true>, n / 4, 64, "dbn_twoILi64ELb1E", "2BN float4 two channels shared 64");
    form(dbn_two<128, false>, n / 4, 128, "dbn_twoILi128ELb0E", "2BN float4 two loads a lane 128");
    form(dbn_two<64, false>, n / 4, 64, "dbn_twoILi64ELb0E", "2BN float4 two loads a lane 64");
    form(dbn_scalar<512, 1>, n, 512, "dbn_scalarILi512ELi1E", "2BN scalar 512");
    form(dbn_scalar<1024, 1>, n, 1024, "dbn_scalarILi1024ELi1E", "2BN scalar 1024");
    form(dbn_fast<0>, n, 256, "dbn_fastILi0E", "2BN scalar 256 rsqrtf");
    form(dbn_fast<1>, n, 256, "dbn_fastILi1E", "2BN scalar 256 __frsqrt_rn");
    form(dbn_fast<2>, n, 256, "dbn_fastILi2E", "2BN scalar 256 __fsqrt_rn, __frcp_rn");
    form(dbn_scalar<256, 1>, n, 256, "dbn_scalarILi256ELi1E", "2BN scalar 256 (again)");
  }
  {
    constexpr int C = 64, n_in = C * 12544, n_out = C * 3136;
    std::vector<PoolArgs> sets(kSets);
    for (auto& p : sets) {
      p = {device_floats(n_in), device_floats(C), device_floats(C),
           device_floats(C),    device_floats(C), device_floats(n_out)};
    }
    // Variances in (0, 2], as a trained model's: device_floats' [-1, 1) would make half the
    // channels NaN, which no model has and which would hide a wrong window in the check below.
    std::vector<float> var(C);
    for (int c = 0; c < C; ++c) var[c] = 0.03f * static_cast<float>(c + 1);
    for (auto& p : sets)
      CHECK_CUDA(cudaMemcpy(const_cast<float*>(p.var), var.data(), sizeof(float) * C,
                            cudaMemcpyHostToDevice));
    const double bytes = 4.0 * (n_in + n_out);
    const Refs refs = references(bytes, rs, rd);
    const auto form = [&](auto kernel, int threads, int block, const char* name, const char* what) {
      repeat([&](int s) { kernel<<<(threads + block - 1) / block, block>>>(sets[s]); });
      print(what, bytes, take(name), refs);
    };
    // The shuffled forms must give the generated form's numbers, bit for bit (same operations).
    const auto output = [&](auto kernel, int threads) {
      kernel<<<(threads + 255) / 256, 256>>>(sets[0]);
      std::vector<float> h(n_out);
      CHECK_CUDA(cudaMemcpy(h.data(), sets[0].out, sizeof(float) * n_out, cudaMemcpyDeviceToHost));
      return h;
    };
    const auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * a.size()) == 0;
    };
    const std::vector<float> want = output(pool_gen<256, true>, n_out);
    std::printf("stem pool shuffled scalar / float2 / float4 same as generated: %s / %s / %s\n",
                same_bits(output(pool_shfl<256, 1, true>, n_out), want) ? "yes" : "NO",
                same_bits(output(pool_shfl<256, 1>, n_out), want) ? "yes" : "NO",
                same_bits(output(pool_shfl<256, 2>, n_out / 2), want) ? "yes" : "NO");
    take("pool_");
    form(pool_gen<256, true>, n_out, 256, "pool_genILi256ELb1E",
         "stem pool 256 (generated, exact)");
    form(pool_shfl<256, 1>, n_out, 256, "pool_shflILi256ELi1ELb0E",
         "stem pool shuffled float2 256");
    form(pool_shfl<128, 1>, n_out, 128, "pool_shflILi128ELi1ELb0E",
         "stem pool shuffled float2 128");
    form(pool_shfl<512, 1>, n_out, 512, "pool_shflILi512ELi1ELb0E",
         "stem pool shuffled float2 512");
    form(pool_shfl<256, 1, true>, n_out, 256, "pool_shflILi256ELi1ELb1E",
         "stem pool shuffled 2 floats 256");
    form(pool_shfl<256, 2>, n_out / 2, 256, "pool_shflILi256ELi2ELb0E",
         "stem pool shuffled float4 256");
    form(pool_shfl<128, 2>, n_out / 2, 128, "pool_shflILi128ELi2ELb0E",
         "stem pool shuffled float4 128");
    form(pool_gen<256, true>, n_out, 256, "pool_genILi256ELb1E",
         "stem pool 256 (generated, again)");
    form(pool_gen<256>, n_out, 256, "pool_genILi256ELb0E", "stem pool 256 (generated)");
    form(pool_gen<128>, n_out, 128, "pool_genILi128ELb0E", "stem pool 128");
    form(pool_gen<512>, n_out, 512, "pool_genILi512ELb0E", "stem pool 512");
    form(pool_pair<256>, n_out / 2, 256, "pool_pairILi256E", "stem pool pair 256");
    form(pool_pair<128>, n_out / 2, 128, "pool_pairILi128E", "stem pool pair 128");
    form(pool_f2<256>, n_out, 256, "pool_f2ILi256E", "stem pool float2 rows 256");
    form(pool_f2<128>, n_out, 128, "pool_f2ILi128E", "stem pool float2 rows 128");
    form(pool_gen<1024>, n_out, 1024, "pool_genILi1024ELb0E", "stem pool 1024");
    form(pool_fast<256>, n_out, 256, "pool_fastILi256E", "stem pool 256 __frsqrt_rn");
    form(pool_fast<512>, n_out, 512, "pool_fastILi512E", "stem pool 512 __frsqrt_rn");
    form(pool_staged<4>, 64 * 14 * 256, 256, "pool_stagedILi4E", "stem pool staged 4 rows");
    form(pool_staged<8>, 64 * 7 * 256, 256, "pool_stagedILi8E", "stem pool staged 8 rows");
    form(pool_staged<14>, 64 * 4 * 256, 256, "pool_stagedILi14E", "stem pool staged 14 rows");
    form(pool_gen<256>, n_out, 256, "pool_genILi256ELb0E", "stem pool 256 (again)");
  }
}

}  // namespace fxbench
