// The attention forward on tensor cores, for bf16 and f16 operands: a flash-attention kernel.
// A block of 4 warps takes 64 query rows of one head, each warp 16 rows whose query fragments
// stay in registers; it walks the keys 64 at a time through shared memory, scores them with
// mma.sync (m16n8k16, f32 accumulators), keeps each row's running max and sum (the online
// softmax), and adds the tile's probabilities, rounded to the operands' dtype as PyTorch's flash
// and cuDNN kernels round them, times the values, again on tensor cores. The f32 kernels of
// attention_kernel.cpp compute every product in float on CUDA cores: 3 to 4 times as long as
// cuDNN's kernel on a bf16 decoder's attention.

#include <array>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "attention_text.h"
#include "fxscope/codegen/cuda_prelude.h"
#include "fxscope/gpu/attention_kernel.h"

namespace fxscope::gpu {
namespace {

constexpr int kWarps = 4;
constexpr int kRowsPerBlock = 16 * kWarps;
constexpr int kKeysPerTile = 64;
// Shared rows padded by 8 elements (16 bytes): the 8 rows a fragment load touches then start
// in 8 different bank quads, so a warp's 32 loads hit 32 banks.
constexpr int kPad = 8;

}  // namespace

bool attention_mma_enabled() {
  // On unless FXSCOPE_ATTENTION_TENSOR_CORES=0: the device test (test_gpu "[cuda][attention]")
  // holds it to the f32 kernel on LLaMA's, BERT's and T5's shapes; the switch keeps the f32
  // kernel at hand where a user wants to tell the two apart.
  const char* v = std::getenv("FXSCOPE_ATTENTION_TENSOR_CORES");
  return !(v && std::strcmp(v, "0") == 0);
}

bool attention_mma_fits(const AttentionSpec& s) {
  const std::string& dt = s.q.dtype;
  const std::int64_t dim = s.q.sizes[3];
  return !s.backward && (dt == "bf16" || dt == "f16") && s.k.dtype == dt && s.v.dtype == dt &&
         s.out.dtype == dt && dim % 16 == 0 && dim >= 16 && dim <= 128 && s.k.sizes[3] == dim &&
         s.v.sizes[3] == dim && s.v.sizes[2] == s.k.sizes[2];
}

int attention_mma_threads() {
  return 32 * kWarps;
}

long long attention_mma_blocks(const AttentionSpec& s) {
  return s.q.sizes[0] * s.q.sizes[1] * ((s.q.sizes[2] + kRowsPerBlock - 1) / kRowsPerBlock);
}

std::size_t attention_mma_shared_bytes(const AttentionSpec& s) {
  const auto dim = static_cast<std::size_t>(s.q.sizes[3]);
  return (kKeysPerTile * (dim + kPad) + dim * (kKeysPerTile + kPad)) * 2;
}

std::string attention_mma_source(const AttentionSpec& s) {
  using namespace attention_text;
  const bool bf16 = s.q.dtype == "bf16";
  const std::int64_t heads = s.q.sizes[1];
  const std::int64_t rows = s.q.sizes[2];
  const std::int64_t cols = s.k.sizes[2];
  const std::int64_t dim = s.q.sizes[3];
  const std::int64_t blocks_per_head = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  const std::int64_t kpitch = dim + kPad;
  const std::int64_t vpitch = kKeysPerTile + kPad;
  const char* ty = bf16 ? "bf16" : "f16";
  std::ostringstream o;
  o << codegen::cuda_prelude() << "// ---- attention on tensor cores: " << rows << " x " << cols
    << " scores of " << dim << "-wide heads, " << ty << " operands, f32 accumulators ----\n"
    << "__device__ __forceinline__ void fx_mma(float* c, const unsigned* a, unsigned b0, "
       "unsigned b1) {\n"
    << "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32." << ty << "." << ty
    << ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\"\n"
    << "               : \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n"
    << "               : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), "
       "\"r\"(b1));\n"
    << "}\n"
    << "// Two floats as one register of two " << ty << " (LO in the low half).\n"
    << "__device__ __forceinline__ unsigned fx_pack(float lo, float hi) {\n"
    << "  unsigned r;\n"
    << "  asm(\"cvt.rn." << ty << "x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n"
    << "  return r;\n"
    << "}\n"
    << "__device__ __forceinline__ unsigned fx_pair(const unsigned short* p) {\n"
    << "  return *reinterpret_cast<const unsigned*>(p);\n"
    << "}\n"
    << signature(s, "extern \"C\" __global__ void __launch_bounds__(" +
                        std::to_string(32 * kWarps) + ") ")
    << "  const float neg_inf = __int_as_float(0xff800000);\n"
    << "  const long long bh = blockIdx.x / " << blocks_per_head << "LL;\n"
    << "  const int row0 = (int)(blockIdx.x % " << blocks_per_head << "LL) * " << kRowsPerBlock
    << ";\n"
    << "  const long long h = bh % " << heads << "LL;\n"
    << "  const long long b = bh / " << heads << "LL;\n"
    << "  extern __shared__ unsigned short smem16[];\n"
    << "  unsigned short* ks = smem16;                       // [key][dim], rows of " << kpitch
    << "\n"
    << "  unsigned short* vt = smem16 + " << kKeysPerTile * kpitch << ";  // [dim][key], rows of "
    << vpitch << "\n"
    << "  const unsigned short* q16 = reinterpret_cast<const unsigned short*>(q);\n"
    << "  const unsigned short* k16 = reinterpret_cast<const unsigned short*>(k);\n"
    << "  const unsigned short* v16 = reinterpret_cast<const unsigned short*>(v);\n"
    << "  const int warp = threadIdx.x / 32;\n"
    << "  const int lane = threadIdx.x % 32;\n"
    << "  const int g = lane / 4;  // the fragment's row (and B's column)\n"
    << "  const int t = lane % 4;  // the pair of columns within it\n"
    << "  const int ra = row0 + warp * 16 + g;  // this thread's two query rows\n"
    << "  const int rb = ra + 8;\n"
    << "  // The warp's 16 query rows as A fragments, one per 16 columns of the head.\n"
    << "  unsigned qa[" << dim / 16 << "][4];\n"
    << "  #pragma unroll\n"
    << "  for (int kk = 0; kk < " << dim / 16 << "; ++kk) {\n"
    << "    unsigned short e[8];\n"
    << "    #pragma unroll\n"
    << "    for (int x = 0; x < 8; ++x) {\n"
    << "      const int r = (x & 2) ? rb : ra;\n"
    << "      const int c = kk * 16 + 2 * t + (x & 1) + ((x & 4) ? 8 : 0);\n"
    << "      e[x] = r < " << rows << " ? q16[" << index_of(s.q, "r", "c") << "] : 0;\n"
    << "    }\n"
    << "    #pragma unroll\n"
    << "    for (int x = 0; x < 4; ++x) qa[kk][x] = e[2 * x] | ((unsigned)e[2 * x + 1] << 16);\n"
    << "  }\n"
    << "  float acc[" << dim / 8 << "][4];\n"
    << "  #pragma unroll\n"
    << "  for (int n = 0; n < " << dim / 8
    << "; ++n) acc[n][0] = acc[n][1] = acc[n][2] = "
       "acc[n][3] = 0.f;\n"
    << "  float ma = neg_inf, mb = neg_inf, la = 0.f, lb = 0.f;  // running max and sum\n";
  // Causal: keys past the block's last row are masked for all its rows.
  const std::string key_end =
      s.causal ? "min(" + std::to_string(cols) + ", row0 + " + std::to_string(kRowsPerBlock) + ")"
               : std::to_string(cols);
  o << "  const int key_end = " << key_end << ";\n"
    << "  for (int j0 = 0; j0 < key_end; j0 += " << kKeysPerTile << ") {\n"
    << "    __syncthreads();\n"
    << "    for (int e = threadIdx.x; e < " << kKeysPerTile * dim << "; e += blockDim.x) {\n"
    << "      const int j = e / " << dim << ";\n"
    << "      const int d = e % " << dim << ";\n"
    << "      const bool in = j0 + j < " << cols << ";\n"
    << "      ks[j * " << kpitch << " + d] = in ? k16[" << index_of(s.k, "j0 + j", "d")
    << "] : 0;\n"
    << "      vt[d * " << vpitch << " + j] = in ? v16[" << index_of(s.v, "j0 + j", "d")
    << "] : 0;\n"
    << "    }\n"
    << "    __syncthreads();\n"
    << "    float sc[" << kKeysPerTile / 8 << "][4];\n"
    << "    #pragma unroll\n"
    << "    for (int n = 0; n < " << kKeysPerTile / 8
    << "; ++n) sc[n][0] = sc[n][1] = sc[n][2] = sc[n][3] = 0.f;\n"
    << "    #pragma unroll\n"
    << "    for (int kk = 0; kk < " << dim / 16 << "; ++kk) {\n"
    << "      #pragma unroll\n"
    << "      for (int n = 0; n < " << kKeysPerTile / 8 << "; ++n) {\n"
    << "        const unsigned short* kr = ks + (n * 8 + g) * " << kpitch << " + kk * 16 + 2 * t;\n"
    << "        fx_mma(sc[n], qa[kk], fx_pair(kr), fx_pair(kr + 8));\n"
    << "      }\n"
    << "    }\n"
    << "    float ta = neg_inf, tb = neg_inf;  // the tile's row maxima\n"
    << "    #pragma unroll\n"
    << "    for (int n = 0; n < " << kKeysPerTile / 8 << "; ++n) {\n"
    << "      #pragma unroll\n"
    << "      for (int x = 0; x < 4; ++x) {\n"
    << "        const int i = x < 2 ? ra : rb;\n"
    << "        const int j = j0 + n * 8 + 2 * t + (x & 1);\n"
    << "        float sv = sc[n][x] * " << float_literal(s.scale) << ";\n";
  if (s.bias) {
    o << "        if (i < " << rows << " && j < " << cols
      << ") sv += " << load("bias", *s.bias, "i", "j") << ";\n";
  }
  o << "        if (j >= " << cols << (s.causal ? " || j > i" : "") << ") sv = neg_inf;\n"
    << "        sc[n][x] = sv;\n"
    << "        if (x < 2) ta = fmaxf(ta, sv); else tb = fmaxf(tb, sv);\n"
    << "      }\n"
    << "    }\n"
    << "    #pragma unroll\n"
    << "    for (int w = 1; w < 4; w <<= 1) {  // the 4 threads sharing a row\n"
    << "      ta = fmaxf(ta, __shfl_xor_sync(0xffffffffu, ta, w));\n"
    << "      tb = fmaxf(tb, __shfl_xor_sync(0xffffffffu, tb, w));\n"
    << "    }\n"
    << "    const float na = fmaxf(ma, ta), nb = fmaxf(mb, tb);\n"
    << "    // A row masked so far keeps max -inf: its exponentials are 0, not NaN.\n"
    << "    const float ba = na == neg_inf ? 0.f : na, bb = nb == neg_inf ? 0.f : nb;\n"
    << "    const float fa = __expf(ma - ba), fb = __expf(mb - bb);\n"
    << "    ma = na;\n"
    << "    mb = nb;\n"
    << "    la *= fa;\n"
    << "    lb *= fb;\n"
    << "    #pragma unroll\n"
    << "    for (int n = 0; n < " << dim / 8 << "; ++n) {\n"
    << "      acc[n][0] *= fa; acc[n][1] *= fa; acc[n][2] *= fb; acc[n][3] *= fb;\n"
    << "    }\n"
    << "    #pragma unroll\n"
    << "    for (int kk = 0; kk < " << kKeysPerTile / 16 << "; ++kk) {\n"
    << "      // Two score tiles (16 keys) as one A fragment of probabilities.\n"
    << "      unsigned pa[4];\n"
    << "      #pragma unroll\n"
    << "      for (int half = 0; half < 2; ++half) {\n"
    << "        float* c = sc[2 * kk + half];\n"
    << "        const float p0 = __expf(c[0] - ba), p1 = __expf(c[1] - ba);\n"
    << "        const float p2 = __expf(c[2] - bb), p3 = __expf(c[3] - bb);\n"
    << "        la += p0 + p1;\n"
    << "        lb += p2 + p3;\n"
    << "        pa[2 * half] = fx_pack(p0, p1);\n"
    << "        pa[2 * half + 1] = fx_pack(p2, p3);\n"
    << "      }\n"
    << "      #pragma unroll\n"
    << "      for (int n = 0; n < " << dim / 8 << "; ++n) {\n"
    << "        const unsigned short* vr = vt + (n * 8 + g) * " << vpitch << " + kk * 16 + 2 * t;\n"
    << "        fx_mma(acc[n], pa, fx_pair(vr), fx_pair(vr + 8));\n"
    << "      }\n"
    << "    }\n"
    << "  }\n"
    << "  #pragma unroll\n"
    << "  for (int w = 1; w < 4; w <<= 1) {\n"
    << "    la += __shfl_xor_sync(0xffffffffu, la, w);\n"
    << "    lb += __shfl_xor_sync(0xffffffffu, lb, w);\n"
    << "  }\n"
    << "  const float ia = 1.f / la, ib = 1.f / lb;\n"
    << "  #pragma unroll\n"
    << "  for (int n = 0; n < " << dim / 8 << "; ++n) {\n"
    << "    const int d = n * 8 + 2 * t;\n"
    << "    if (ra < " << rows << ") {\n"
    << "      " << store("out", s.out, "ra", "d", "acc[n][0] * ia") << "\n"
    << "      " << store("out", s.out, "ra", "d + 1", "acc[n][1] * ia") << "\n"
    << "    }\n"
    << "    if (rb < " << rows << ") {\n"
    << "      " << store("out", s.out, "rb", "d", "acc[n][2] * ib") << "\n"
    << "      " << store("out", s.out, "rb", "d + 1", "acc[n][3] * ib") << "\n"
    << "    }\n"
    << "  }\n";
  if (s.lse) {  // each row's by the first of the four threads that share it
    const std::array<std::array<const char*, 3>, 2> halves{
        {{"ra", "ma", "la"}, {"rb", "mb", "lb"}}};
    for (const auto& [row, max, sum] : halves) {
      o << "  if (t == 0 && " << row << " < " << rows << ") {\n"
        << "    const int i = " << row << ";\n"
        << "    " << lse_store(s, max, sum) << "  }\n";
    }
  }
  o << "}\n";
  return o.str();
}

}  // namespace fxscope::gpu
