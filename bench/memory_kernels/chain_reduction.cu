// pointwise_chain's first fused kernel (a chain of sin, exp, a division, tanh and sigmoid, then a
// looped var_mean) takes longer in the engine than its 14.5 us of instructions (ops/alu_cost) and
// than the 16.9 us of the second kernel, which computes the same chain element by element with no
// reduction. These forms split that gap: the reduction's per-element update, the loop's unroll,
// independent accumulators, and the chain with a plain sum or no reduction at all.
// `bench_memory_kernels chain` runs them alone.
//
// On the H200, median of 30, from memory / from L2 (BENCH_WARM=1):
//   Welford, unroll 8, warps merged in turn      25.1 / 22.2 us   (23.4-23.8 in the model)
//   the same, warps merged by a butterfly (generated)       20.3 from L2 (20.8-21.0 in the model)
//   Welford, unroll 1 / 2 / 4                    25.8 / 25.0 / 25.0;  23.4 / 22.6 / 22.4
//   shifted sums, unroll 8                       24.3 / 22.0
//   plain sum, unroll 8 (no variance at all)     22.8 / 20.7
//   Welford, 8 loads hoisted                     22.7 / 21.9;  shifted sums 21.5 / 20.6
//   float4 words: Welford / shifted / plain sum  22.6 / 21.6;  21.9 / 20.8;  20.8 / 19.7
//   shifted, float4, words loaded first, 8 / 16 / 32 parts a row
//                                                22.1 / 25.2 / 34.6;  20.9 / 24.7 / 34.3
//   the same with the butterfly, 8 / 32 parts    19.7 / 26.4;  18.5 / 26.0
//   the chain alone, float4, written out         15.5 / 14.8
//   the chain alone, a float a thread            21.4 / 18.0
// The Welford update is not the gap (a plain sum still takes 20.7-22.8), nor where the loads sit
// (hoisting them saves 0.3 us from L2). Two things are: the team's last step, where every thread
// merged the 16 warps' partials one after another (15 Welford merges, a division each, redundant
// in all 512 threads; more, shorter parts make it worse: 34.6 us at 32 parts), and one chain at a
// time a thread, which is latency-bound (a float a thread with no reduction takes 18.0; four
// chains a thread, float4, 14.8). The code generator now merges the warps by a butterfly
// (cuda_prelude's fx_team_reduce): 69-70% of the kernel's 14.5 us of instructions in the model,
// from 61-62%. Shifted sums over float4 words on top would give about 1.7 us more (18.5 from L2;
// Inductor's kernel takes 18.7 us); the generator does not write that form.
#include <vector>

#include "chain_reduction.h"
#include "welford.cuh"

namespace fxbench {
namespace {

constexpr int kRows = 64, kCols = 65536, kParts = 8, kTeam = 512;
constexpr int kPart = kCols / kParts;  // elements a block reduces: 8192

__device__ __forceinline__ float sigmoid(float x) {
  return 1.0f / (1.0f + expf(-x));
}
// The chain as the generator writes it (the kernel's first fourteen lines).
__device__ __forceinline__ float chain(float x) {
  const float a = sinf(x * 1.5f + 0.25f) * x;
  const float r = (a != a || a > 0.0f) ? a : 0.0f;
  const float e = expf(-(r - 0.1f));
  return sigmoid(tanhf(e / (e + 1.0f)) * 3.0f + x);
}

// TREE false: every thread merges the 16 warps' partials one after another, 15 merges with a
// division each. TREE (what the generator writes, fx_team_reduce): each warp merges them as a
// butterfly, lane l holding warp l % 16's partial: 4 merges.
template <bool TREE = false>
__device__ __forceinline__ Wf team_reduce(Wf v) {
  for (int m = 16; m > 0; m >>= 1) v = wf_combine(v, shfl(v, m));
  constexpr int warps = kTeam / 32;
  __shared__ Wf slots[warps];
  if (threadIdx.x % 32 == 0) slots[threadIdx.x / 32] = v;
  __syncthreads();
  if constexpr (TREE) {
    Wf r = slots[threadIdx.x % 32 % warps];
    for (int m = warps / 2; m > 0; m >>= 1) r = wf_combine(r, shfl(r, m, warps));
    return r;
  }
  Wf r = slots[0];
  for (int k = 1; k < warps; ++k) r = wf_combine(r, slots[k]);
  return r;
}
__device__ __forceinline__ void store(double* out, Wf w) {
  if (threadIdx.x == 0) {
    out[blockIdx.x * 3 + 0] = w.mean;
    out[blockIdx.x * 3 + 1] = w.m2;
    out[blockIdx.x * 3 + 2] = w.n;
  }
}
__device__ __forceinline__ const float* part_of(const float* x) {
  return x + (blockIdx.x / kParts) * kCols + (blockIdx.x % kParts) * kPart;
}

// FORM 0: Welford per element, as generated. 1: the thread's sums shifted by its first element
// (s += d, q += d * d), made a Welford state once. 2: two Welford states, even and odd steps.
// 3: a plain sum (no variance: the floor of any reduction). UNROLL: the loop's pragma.
template <int FORM, int UNROLL, bool TREE = false>
__global__ void __launch_bounds__(kTeam)
    chain_red(const float* __restrict__ x, double* __restrict__ out) {
  const float* p = part_of(x);
  Wf acc{0, 0, 0}, acc2{0, 0, 0};
  float k = 0, s = 0, q = 0;
  if constexpr (FORM == 1) k = chain(p[threadIdx.x]);
#pragma unroll UNROLL
  for (int r = threadIdx.x; r < kPart; r += kTeam) {
    const float v = chain(p[r]);
    if constexpr (FORM == 0) acc = wf_add_fast(acc, v);
    if constexpr (FORM == 1) {
      const float d = v - k;
      s += d;
      q += d * d;
    }
    if constexpr (FORM == 2) {
      if ((r / kTeam) % 2)
        acc2 = wf_add_fast(acc2, v);
      else
        acc = wf_add_fast(acc, v);
    }
    if constexpr (FORM == 3) s += v;
  }
  if constexpr (FORM == 1) {
    const float n = kPart / kTeam, m = s / n;
    acc = {k + m, q - s * m, n};
  }
  if constexpr (FORM == 2) acc = wf_combine(acc, acc2);
  if constexpr (FORM == 3) acc = {s, 0, 1};
  store(out, team_reduce<TREE>(acc));
}

// FORM as chain_red's (0 Welford, 1 shifted sums, 3 plain sum), each thread reading 16-byte
// words: four independent chains a step, as Triton's RBLOCK of 4 elements a thread has.
template <int FORM>
__global__ void __launch_bounds__(kTeam)
    chain_red4(const float* __restrict__ x, double* __restrict__ out) {
  const float4* p = reinterpret_cast<const float4*>(part_of(x));
  Wf acc{0, 0, 0};
  float k = 0, s = 0, q = 0;
  if constexpr (FORM == 1) k = chain(p[threadIdx.x].x);
#pragma unroll 2
  for (int r = threadIdx.x; r < kPart / 4; r += kTeam) {
    const float4 w = p[r];
    const float v[4] = {chain(w.x), chain(w.y), chain(w.z), chain(w.w)};
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      if constexpr (FORM == 0) acc = wf_add_fast(acc, v[l]);
      if constexpr (FORM == 1) {
        const float d = v[l] - k;
        s += d;
        q += d * d;
      }
      if constexpr (FORM == 3) s += v[l];
    }
  }
  if constexpr (FORM == 1) {
    const float n = kPart / kTeam, m = s / n;
    acc = {k + m, q - s * m, n};
  }
  if constexpr (FORM == 3) acc = {s, 0, 1};
  store(out, team_reduce(acc));
}

// FORM 0 or 1, the thread's HOIST loads of a step issued before any of their chains: nvcc does not
// move a load above the previous element's sinf (its slow path is a call), so as generated each
// element waits for its own load.
template <int FORM, int HOIST>
__global__ void __launch_bounds__(kTeam)
    chain_red_hoisted(const float* __restrict__ x, double* __restrict__ out) {
  const float* p = part_of(x);
  Wf acc{0, 0, 0};
  float k = 0, s = 0, q = 0;
  for (int r0 = threadIdx.x; r0 < kPart; r0 += kTeam * HOIST) {
    float in[HOIST];
#pragma unroll
    for (int u = 0; u < HOIST; ++u) in[u] = r0 + u * kTeam < kPart ? p[r0 + u * kTeam] : 0.0f;
#pragma unroll
    for (int u = 0; u < HOIST; ++u) {
      if (r0 + u * kTeam >= kPart) break;
      const float v = chain(in[u]);
      if constexpr (FORM == 0) acc = wf_add_fast(acc, v);
      if constexpr (FORM == 1) {
        if (r0 == threadIdx.x && u == 0) k = v;
        const float d = v - k;
        s += d;
        q += d * d;
      }
    }
  }
  if constexpr (FORM == 1) {
    const float n = kPart / kTeam, m = s / n;
    acc = {k + m, q - s * m, n};
  }
  store(out, team_reduce(acc));
}

// Shifted sums over float4 words, PARTS parts a row (so PARTS x 64 blocks, each thread
// 8192 * 8 / PARTS / kTeam elements), every word of the thread loaded before any chain: whether
// more, shorter blocks (as the pointwise kernel's four waves) or loads in flight close the gap.
template <int PARTS, bool TREE = false>
__global__ void __launch_bounds__(kTeam)
    chain_red4_parts(const float* __restrict__ x, double* __restrict__ out) {
  constexpr int part = kCols / PARTS, words = part / 4 / kTeam;
  const float4* p = reinterpret_cast<const float4*>(x + (blockIdx.x / PARTS) * kCols +
                                                    (blockIdx.x % PARTS) * part);
  float4 w[words];
#pragma unroll
  for (int u = 0; u < words; ++u) w[u] = p[threadIdx.x + u * kTeam];
  const float k = chain(w[0].x);
  float s = 0, q = 0;
#pragma unroll
  for (int u = 0; u < words; ++u) {
    const float v[4] = {chain(w[u].x), chain(w[u].y), chain(w[u].z), chain(w[u].w)};
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const float d = v[l] - k;
      s += d;
      q += d * d;
    }
  }
  const float n = 4 * words, m = s / n;
  store(out, team_reduce<TREE>(Wf{k + m, q - s * m, n}));
}

// The chain element by element in float4 words, written out: the second kernel's work without its
// normalisation.
__global__ void __launch_bounds__(256)
    chain_poi(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n4; i += gridDim.x * 256) {
    const float4 v = x[i];
    y[i] = make_float4(chain(v.x), chain(v.y), chain(v.z), chain(v.w));
  }
}

// The same, an element a thread (the loads scalar): whether the float4 form's four chains a thread
// are what makes it fast.
__global__ void __launch_bounds__(256)
    chain_poi1(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) y[i] = chain(x[i]);
}

}  // namespace

void chain_reduction(Word* const* rs, Word* const* rd) {
  constexpr std::size_t n = std::size_t(kRows) * kCols;
  std::vector<float*> xs(kSets), ys(kSets);
  std::vector<double*> outs(kSets);
  for (int s = 0; s < kSets; ++s) {
    xs[s] = device_floats(n);
    ys[s] = device_floats(n);
    CHECK_CUDA(cudaMalloc(&outs[s], kRows * 32 * 3 * sizeof(double)));  // up to 32 parts
  }
  const double red_bytes = n * 4.0;
  const Refs red_refs = references(red_bytes, rs, rd);
  // KERNEL over PARTS parts a row, a block each.
  auto run = [&](const char* what, const char* name, auto kernel, int parts = kParts) {
    repeat([&](int s) { kernel<<<kRows * parts, kTeam>>>(xs[s], outs[s]); });
    print(what, red_bytes, take(name), red_refs);
  };
  run("chain + Welford, unroll 8 (generated)", "chain_redILi0ELi8ELb0", chain_red<0, 8>);
  run("chain + Welford, unroll 8, butterfly team", "chain_redILi0ELi8ELb1", chain_red<0, 8, true>);
  run("chain + Welford, unroll 1", "chain_redILi0ELi1ELb0", chain_red<0, 1>);
  run("chain + Welford, unroll 2", "chain_redILi0ELi2ELb0", chain_red<0, 2>);
  run("chain + Welford, unroll 4", "chain_redILi0ELi4ELb0", chain_red<0, 4>);
  run("chain + shifted sums, unroll 8", "chain_redILi1ELi8ELb0", chain_red<1, 8>);
  run("chain + shifted sums, unroll 2", "chain_redILi1ELi2ELb0", chain_red<1, 2>);
  run("chain + two Welford states, unroll 8", "chain_redILi2ELi8ELb0", chain_red<2, 8>);
  run("chain + plain sum, unroll 8", "chain_redILi3ELi8ELb0", chain_red<3, 8>);
  run("chain + plain sum, unroll 1", "chain_redILi3ELi1ELb0", chain_red<3, 1>);
  run("chain + Welford, 4 loads hoisted", "chain_red_hoistedILi0ELi4", chain_red_hoisted<0, 4>);
  run("chain + Welford, 8 loads hoisted", "chain_red_hoistedILi0ELi8", chain_red_hoisted<0, 8>);
  run("chain + Welford, 16 loads hoisted", "chain_red_hoistedILi0ELi16", chain_red_hoisted<0, 16>);
  run("chain + shifted, 8 loads hoisted", "chain_red_hoistedILi1ELi8", chain_red_hoisted<1, 8>);
  run("chain + Welford, float4", "chain_red4ILi0", chain_red4<0>);
  run("chain + shifted sums, float4", "chain_red4ILi1", chain_red4<1>);
  run("chain + plain sum, float4", "chain_red4ILi3", chain_red4<3>);
  run("shifted, float4, 8 parts, words loaded first", "chain_red4_partsILi8", chain_red4_parts<8>,
      8);
  run("shifted, float4, 16 parts, words loaded first", "chain_red4_partsILi16",
      chain_red4_parts<16>, 16);
  run("shifted, float4, 32 parts, one word a thread", "chain_red4_partsILi32", chain_red4_parts<32>,
      32);
  run("shifted, float4, 8 parts, butterfly team", "chain_red4_partsILi8ELb1",
      chain_red4_parts<8, true>, 8);
  run("shifted, float4, 32 parts, butterfly team", "chain_red4_partsILi32ELb1",
      chain_red4_parts<32, true>, 32);
  const Refs poi_refs = references(2 * red_bytes, rs, rd);
  repeat([&](int s) {
    chain_poi<<<4096, 256>>>(reinterpret_cast<const float4*>(xs[s]),
                             reinterpret_cast<float4*>(ys[s]), int(n / 4));
  });
  print("chain alone, float4, written out", 2 * red_bytes, take("chain_poiEPK6float4"), poi_refs);
  repeat([&](int s) { chain_poi1<<<int(n / 256), 256>>>(xs[s], ys[s], int(n)); });
  print("chain alone, a float a thread, written out", 2 * red_bytes, take("chain_poi1"), poi_refs);
}

}  // namespace fxbench
