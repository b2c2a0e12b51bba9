// The prelude is one raw string so that the generated source shows users exactly what runs.

#include "fxscope/codegen/cuda_prelude.h"

namespace fxscope::codegen {

std::string_view cuda_prelude() {
  return R"CUDA(// ---- fxscope prelude: dtype conversions, reduction combiners, team reductions ----
// f16 and bf16 travel as their 16 bits; arithmetic happens in float.
struct fx_half { unsigned short bits; };
struct fx_bf16 { unsigned short bits; };
__device__ __forceinline__ float fx_h2f(fx_half h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
  return f;
}
__device__ __forceinline__ fx_half fx_f2h(float f) {
  fx_half h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
  return h;
}
__device__ __forceinline__ float fx_b2f(fx_bf16 b) {
  return __uint_as_float(static_cast<unsigned>(b.bits) << 16);
}
__device__ __forceinline__ fx_bf16 fx_f2b(float f) {
  // Round to nearest even on the 16 dropped bits; NaN stays a (quiet) NaN.
  const unsigned u = __float_as_uint(f);
  fx_bf16 b;
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    b.bits = static_cast<unsigned short>((u >> 16) | 0x40u);
  } else {
    b.bits = static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  return b;
}
// 64-bit element index, for kernels whose buffers reach past 2^31 elements.
typedef long long fx_i64;
// N contiguous elements moved by one load or store: 4 floats or 8 halves in 16 bytes.
template <class T, int N> struct alignas(sizeof(T) * N) fx_vec { T v[N]; };
// An atomic add to a 16-bit element (index_put with accumulate): a compare-and-swap of the
// aligned 32-bit word that holds it, the sum rounded once from float.
template <class T, class Up, class Down>
__device__ __forceinline__ void fx_atomic_add16(T* p, float v, Up up, Down down) {
  unsigned* word = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned long long>(p) & ~3ull);
  const unsigned shift = (reinterpret_cast<unsigned long long>(p) & 2u) ? 16u : 0u;
  unsigned old = *word, seen;
  do {
    seen = old;
    T h;
    h.bits = static_cast<unsigned short>(seen >> shift);
    const unsigned short bits = down(up(h) + v).bits;
    const unsigned next = (seen & ~(0xffffu << shift)) | (static_cast<unsigned>(bits) << shift);
    old = atomicCAS(word, seen, next);
  } while (old != seen);
}
__device__ __forceinline__ void fx_atomic_add_f16(fx_half* p, float v) {
  fx_atomic_add16(p, v, fx_h2f, fx_f2h);
}
__device__ __forceinline__ void fx_atomic_add_bf16(fx_bf16* p, float v) {
  fx_atomic_add16(p, v, fx_b2f, fx_f2b);
}
#define FX_INF __int_as_float(0x7f800000)
#define FX_NAN __int_as_float(0x7fc00000)
__device__ __forceinline__ float fx_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float fx_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ float fx_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
// PyTorch's max/min propagate NaN, fmaxf would drop it.
template <class T> __device__ __forceinline__ T fx_max(T a, T b) { return (a != a || a > b) ? a : b; }
template <class T> __device__ __forceinline__ T fx_min(T a, T b) { return (a != a || a < b) ? a : b; }
// Python's % and //: the remainder takes the divisor's sign, the quotient rounds down.
__device__ __forceinline__ float fx_remainder(float a, float b) {
  const float r = fmodf(a, b);
  return r != 0.0f && ((r < 0.0f) != (b < 0.0f)) ? r + b : r;
}
__device__ __forceinline__ double fx_remainder(double a, double b) {
  const double r = fmod(a, b);
  return r != 0.0 && ((r < 0.0) != (b < 0.0)) ? r + b : r;
}
template <class T> __device__ __forceinline__ T fx_remainder(T a, T b) {
  const T r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
template <class T> __device__ __forceinline__ T fx_floor_div(T a, T b) {
  const T q = a / b;
  return (a % b != 0) && ((a < 0) != (b < 0)) ? q - 1 : q;
}
// The same max in one instruction (sm_80's max.NaN: a NaN operand gives NaN), where nothing
// needs to know which operand won (a max pooling whose offsets are not written).
__device__ __forceinline__ float fx_max_nan(float a, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float d;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
#else
  return fx_max(a, b);
#endif
}

// Combiners: one per reduction, each with the identity the accumulators start from.
struct FxSum { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct FxProd { template <class T> __device__ T operator()(T a, T b) const { return a * b; } };
struct FxMax { template <class T> __device__ T operator()(T a, T b) const { return fx_max(a, b); } };
struct FxMin { template <class T> __device__ T operator()(T a, T b) const { return fx_min(a, b); } };
struct FxAny { __device__ int operator()(int a, int b) const { return a | b; } };
struct FxAll { __device__ int operator()(int a, int b) const { return a & b; } };
// Welford's running (mean, m2, count): var_mean in one pass, numerically stable.
struct FxWelfordState { float mean, m2, n; };
struct FxWelford {
  __device__ FxWelfordState operator()(FxWelfordState a, FxWelfordState b) const {
    const float n = a.n + b.n;
    if (n == 0.0f) return a;
    const float delta = b.mean - a.mean;
    const float wb = b.n / n;
    return {a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb, n};
  }
};
// One element into a thread's own state: the merge above with b = (x, 0, 1), without its general
// division (n < 2^24, where the fast one is within 2 ulp).
__device__ __forceinline__ FxWelfordState fx_welford_add(FxWelfordState a, float x) {
  const float n = a.n + 1.0f;
  const float delta = x - a.mean;
  const float mean = a.mean + __fdividef(delta, n);
  return {mean, a.m2 + delta * (x - mean), n};
}
// A persistent row's variance in one pass: the sums of d = x - K and of d * d, K an element of the
// row (its first), so that the row waits for one team reduction instead of two (mean, then the
// centred squares). Shifted by an element of the row, the sums do not cancel as E[x^2] - E[x]^2
// does when the mean is large against the spread.
struct FxShiftedState { float s, q; };
struct FxShiftedSum {
  __device__ FxShiftedState operator()(FxShiftedState a, FxShiftedState b) const {
    return {a.s + b.s, a.q + b.q};
  }
};
// Online softmax: (max, sum of exp(x - max)) rescaled when the max grows, one pass.
struct FxSoftmaxState { float m, s; };
struct FxOnlineSoftmax {
  __device__ FxSoftmaxState operator()(FxSoftmaxState a, FxSoftmaxState b) const {
    if (a.m == -FX_INF) return b;
    if (b.m == -FX_INF) return a;
    const float m = fx_max(a.m, b.m);
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
  }
};
// argmax / argmin: the first index wins ties, as in PyTorch.
struct FxArgState { float v; long long i; };
struct FxArgMax {
  __device__ FxArgState operator()(FxArgState a, FxArgState b) const {
    if (a.v != a.v) return a;
    if (b.v != b.v) return b;
    return (b.v > a.v || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};
struct FxArgMin {
  __device__ FxArgState operator()(FxArgState a, FxArgState b) const {
    if (a.v != a.v) return a;
    if (b.v != b.v) return b;
    return (b.v < a.v || (b.v == a.v && b.i < a.i)) ? b : a;
  }
};

__device__ __forceinline__ float fx_shfl(float v, int m, int w) { return __shfl_xor_sync(0xffffffffu, v, m, w); }
__device__ __forceinline__ double fx_shfl(double v, int m, int w) { return __shfl_xor_sync(0xffffffffu, v, m, w); }
__device__ __forceinline__ int fx_shfl(int v, int m, int w) { return __shfl_xor_sync(0xffffffffu, v, m, w); }
__device__ __forceinline__ long long fx_shfl(long long v, int m, int w) { return __shfl_xor_sync(0xffffffffu, v, m, w); }
__device__ __forceinline__ FxWelfordState fx_shfl(FxWelfordState v, int m, int w) {
  return {fx_shfl(v.mean, m, w), fx_shfl(v.m2, m, w), fx_shfl(v.n, m, w)};
}
__device__ __forceinline__ FxShiftedState fx_shfl(FxShiftedState v, int m, int w) {
  return {fx_shfl(v.s, m, w), fx_shfl(v.q, m, w)};
}
__device__ __forceinline__ FxSoftmaxState fx_shfl(FxSoftmaxState v, int m, int w) {
  return {fx_shfl(v.m, m, w), fx_shfl(v.s, m, w)};
}
__device__ __forceinline__ FxArgState fx_shfl(FxArgState v, int m, int w) {
  return {fx_shfl(v.v, m, w), fx_shfl(v.i, m, w)};
}

// Combines V over a team of TEAM consecutive threads (a power of two) that share one row, and
// gives every thread of the team the result. Within a warp: a butterfly of shuffles. A team wider
// than a warp then meets in shared memory, one slot per warp, and each warp combines the slots by
// a second butterfly, lane l holding warp l % WARPS's: log2(WARPS) merges a thread, not WARPS - 1
// in a row. With a team of 512 merging Welford states (a division each), pointwise_chain's split
// var_mean kernel takes 20.8-21.0 us on an H200 this way, 23.4-23.7 us merging in a row.
// Lanes may differ in the last bit where a merge is not symmetric (Welford's); lane 0, which
// writes a team's result, always merges the lower warps' side first (an argmax's first NaN wins).
// Every thread of the block must call it (threads without a row contribute the identity), since
// it synchronises the block.
template <class T, class Op>
__device__ __forceinline__ T fx_team_reduce(T v, Op op, int team) {
  const int width = team < 32 ? team : 32;
  for (int m = width / 2; m > 0; m >>= 1) v = op(v, fx_shfl(v, m, width));
  if (team <= 32) return v;
  __shared__ T slots[32];
  const int warp = threadIdx.x / 32;
  const int warps = team / 32;
  const int first = (warp / warps) * warps;
  __syncthreads();  // the previous reduction may still read the slots
  if (threadIdx.x % 32 == 0) slots[warp] = v;
  __syncthreads();
  T r = slots[first + threadIdx.x % 32 % warps];
  for (int m = warps / 2; m > 0; m >>= 1) r = op(r, fx_shfl(r, m, warps));
  return r;
}
// The sum of V over the block's threads up to this one, itself included (blockDim.x a multiple
// of 32): each warp scans by shuffles, the warps' totals meet in shared memory, the first warp
// scans them, and each later warp adds the total of those before it. Every thread of the block
// must call it, since it synchronises the block.
template <class T>
__device__ __forceinline__ T fx_block_inclusive_sum(T v) {
  __shared__ T totals[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int o = 1; o < 32; o <<= 1) {
    const T u = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += u;
  }
  __syncthreads();  // the previous call may still read the totals
  if (lane == 31) totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T t = lane < warps ? totals[lane] : T(0);
    for (int o = 1; o < 32; o <<= 1) {
      const T u = __shfl_up_sync(0xffffffffu, t, o);
      if (lane >= o) t += u;
    }
    if (lane < warps) totals[lane] = t;
  }
  __syncthreads();
  return warp > 0 ? v + totals[warp - 1] : v;
}
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// Thread block clusters (sm_90): every thread of every block of the cluster arrives, then waits.
__device__ __forceinline__ void fx_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;"
               ::: "memory");
}
// Combines V (the same in every thread of the block: a whole-block team's result) over the
// CLUSTER blocks of a cluster. Each block's thread 0 leaves its V in the block's shared memory;
// every block reads all of them through distributed shared memory in rank order, so each gets the
// same result. The second barrier keeps a block (and its shared memory) alive until all have read.
template <class T, class Op>
__device__ __forceinline__ T fx_cluster_reduce(T v, Op op, int cluster) {
  static_assert(sizeof(T) % 4 == 0, "read as 32-bit words");
  __shared__ T slot;
  if (threadIdx.x == 0) slot = v;
  fx_cluster_sync();
  unsigned local;
  asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(local) : "l"(&slot));
  T r = v;
  for (int k = 0; k < cluster; ++k) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(k));
    T x;
    unsigned* w = reinterpret_cast<unsigned*>(&x);
    for (int i = 0; i < int(sizeof(T) / 4); ++i) {
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(w[i]) : "r"(remote + 4 * i) : "memory");
    }
    r = k == 0 ? x : op(r, x);
  }
  fx_cluster_sync();
  return r;
}
#endif
// ---- end of prelude ----
)CUDA";
}

}  // namespace fxscope::codegen
