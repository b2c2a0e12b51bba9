// The tensor-core attention kernel (attention_mma.cpp) run on the CPU: its body built by the
// host's compiler behind a shim that runs a block's 128 threads as threads, with barriers for
// __syncthreads and for the warp's shuffles, and mma.sync played from the PTX ISA's fragment
// layout of m16n8k16 (A row-major: a0-a1 row g, a2-a3 row g+8, a4-a7 the same 8 columns on;
// B column-major: b0-b1 rows 2t and 2t+1 of column g, b2-b3 8 rows on; C: c0-c1 row g, c2-c3
// row g+8, columns 2t and 2t+1). It checks the kernel's indexing (shared tiles, tails of rows
// and keys, the causal mask, the bias, the online softmax and the log-sum-exp) against attention
// computed here in double; the device test ([cuda][attention]) checks the hardware's layout.

#include <dlfcn.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "attention_test_data.h"
#include "fxscope/gpu/attention_kernel.h"
#include "scratch_dir.h"

using namespace fxscope;

namespace {

const char* const kMmaWarpShim = R"SHIM(// a block's threads as threads
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>
struct fx_dim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local fx_dim3 threadIdx;
static fx_dim3 blockIdx, blockDim{128, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__
struct fx_half { unsigned short bits; };
struct fx_bf16 { unsigned short bits; };
static inline float fx_b2f(fx_bf16 b) {
  const unsigned u = static_cast<unsigned>(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static inline unsigned short fx_bf16_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
static inline fx_bf16 fx_f2b(float f) { return fx_bf16{fx_bf16_bits(f)}; }
static inline float fx_h2f(fx_half h) {
  const int e = (h.bits >> 10) & 0x1f;
  const float m = static_cast<float>(h.bits & 0x3ff);
  const float v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1.0f + m / 1024.0f, e - 15);
  return (h.bits & 0x8000) ? -v : v;
}
static inline unsigned short fx_half_bits(float f) {
  // Round to nearest even, subnormals included (no value here overflows f16).
  const unsigned sign = f < 0 ? 0x8000u : 0u;
  const float a = std::fabs(f);
  if (a < std::ldexp(1.0f, -14)) {  // subnormal: a multiple of 2^-24
    return static_cast<unsigned short>(sign | static_cast<unsigned>(std::nearbyint(std::ldexp(a, 24))));
  }
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  float scaled = std::nearbyint(std::ldexp(m, 11));  // 11 bits: the implicit one and 10
  if (scaled >= 2048.0f) { scaled /= 2.0f; ++e; }
  return static_cast<unsigned short>(sign | (static_cast<unsigned>(e - 1 + 15) << 10) |
                                     (static_cast<unsigned>(scaled) & 0x3ffu));
}
static inline fx_half fx_f2h(float f) { return fx_half{fx_half_bits(f)}; }
static inline float __int_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
#define __expf(x) std::exp(x)
static inline int min(int a, int b) { return a < b ? a : b; }
// One block's barriers and a warp's exchange buffers.
static std::barrier<>* fx_block_barrier;
static std::barrier<>* fx_warp_barrier[4];
static float fx_warp_floats[4][32];
static unsigned fx_warp_regs[4][32][6];
static inline void __syncthreads() { fx_block_barrier->arrive_and_wait(); }
static inline float __shfl_xor_sync(unsigned, float v, int m) {
  const unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;
  fx_warp_floats[w][l] = v;
  fx_warp_barrier[w]->arrive_and_wait();
  const float r = fx_warp_floats[w][l ^ static_cast<unsigned>(m)];
  fx_warp_barrier[w]->arrive_and_wait();
  return r;
}
static inline float fx_elem(unsigned reg, int half);
// mma.sync m16n8k16, f32 accumulators: every lane hands in its fragments, each computes its own
// four elements of D = A B + C from the whole warp's.
static inline void fx_mma(float* c, const unsigned* a, unsigned b0, unsigned b1) {
  const unsigned w = threadIdx.x / 32, l = threadIdx.x % 32;
  for (int i = 0; i < 4; ++i) fx_warp_regs[w][l][i] = a[i];
  fx_warp_regs[w][l][4] = b0;
  fx_warp_regs[w][l][5] = b1;
  fx_warp_barrier[w]->arrive_and_wait();
  float A[16][16], B[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    const unsigned* r = fx_warp_regs[w][lane];
    for (int i = 0; i < 8; ++i) {
      const int row = g + ((i & 2) ? 8 : 0);
      const int col = 2 * t + (i & 1) + ((i & 4) ? 8 : 0);
      A[row][col] = fx_elem(r[i / 2], i & 1);
    }
    for (int i = 0; i < 4; ++i) {
      const int row = 2 * t + (i & 1) + ((i & 2) ? 8 : 0);
      B[row][g] = fx_elem(r[4 + i / 2], i & 1);
    }
  }
  fx_warp_barrier[w]->arrive_and_wait();
  const int g = static_cast<int>(l) / 4, t = static_cast<int>(l) % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i >= 2 ? 8 : 0), col = 2 * t + (i & 1);
    float acc = c[i];
    for (int k = 0; k < 16; ++k) acc += A[row][k] * B[k][col];
    c[i] = acc;
  }
}
static inline unsigned fx_pair(const unsigned short* p) {
  return static_cast<unsigned>(p[0]) | (static_cast<unsigned>(p[1]) << 16);
}
static unsigned short smem16[1 << 16];
)SHIM";

struct MmaHostCase {
  std::string dtype;
  std::int64_t batch, heads, rows, cols, dim;
  bool causal, bias;
};

}  // namespace

TEST_CASE("tensor-core attention on the host follows attention computed in double",
          "[gpu][attention]") {
  const std::vector<MmaHostCase> cases = {
      {"bf16", 1, 2, 80, 96, 32, false, true},  // a tail of rows and of keys, a bias
      {"f16", 2, 1, 64, 70, 16, true, false},   // causal, a tail of keys
      {"bf16", 1, 1, 20, 20, 128, true, true},  // widest heads, one partial tile
  };
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  test::ScratchDir dir("attention_mma_on_host");
  int built = 0;
  for (const auto& c : cases) {
    INFO(c.dtype << " " << c.batch << "x" << c.heads << " rows " << c.rows << " keys " << c.cols
                 << " dim " << c.dim << (c.causal ? " causal" : "") << (c.bias ? " bias" : ""));
    const bool bf16 = c.dtype == "bf16";
    gpu::AttentionSpec s;
    s.q = test::dense_attention_tensor(c.batch, c.heads, c.rows, c.dim, c.dtype);
    s.k = test::dense_attention_tensor(c.batch, c.heads, c.cols, c.dim, c.dtype);
    s.v = test::dense_attention_tensor(c.batch, c.heads, c.cols, c.dim, c.dtype);
    s.out = test::dense_attention_tensor(c.batch, c.heads, c.rows, c.dim, c.dtype);
    s.causal = c.causal;
    s.scale = 1.0 / std::sqrt(static_cast<double>(c.dim));
    gpu::AttentionTensor lse = test::dense_attention_tensor(c.batch, c.heads, c.rows, 1, "f32");
    lse.strides[3] = 0;
    s.lse = lse;
    std::vector<std::uint16_t> bias;
    if (c.bias) {
      gpu::AttentionTensor b = test::dense_attention_tensor(c.batch, 1, c.rows, c.cols, c.dtype);
      b.strides[1] = 0;
      b.sizes[1] = c.heads;
      s.bias = b;
      for (std::int64_t i = 0; i < c.batch * c.rows * c.cols; ++i) {
        bias.push_back(test::half_bits(i % 5 == 0 ? -20.0f : 0.2f * normal(rng), bf16));
      }
    }
    s.tensor_cores = true;
    REQUIRE(gpu::attention_mma_fits(s));
    const std::string source = gpu::attention_source(s);
    const auto kernel = source.find("extern \"C\"");
    REQUIRE(kernel != std::string::npos);
    const std::string elem = bf16 ? "fx_bf16" : "fx_half";
    const std::string host =
        std::string(kMmaWarpShim) +
        "static inline float fx_elem(unsigned reg, int half) {\n"
        "  const unsigned short b = static_cast<unsigned short>(half ? reg >> 16 : reg);\n"
        "  return " +
        (bf16 ? "fx_b2f(fx_bf16{b})" : "fx_h2f(fx_half{b})") +
        ";\n}\n"
        "static inline unsigned fx_pack(float lo, float hi) {\n"
        "  return static_cast<unsigned>(" +
        (bf16 ? "fx_bf16_bits" : "fx_half_bits") + "(lo)) | (static_cast<unsigned>(" +
        (bf16 ? "fx_bf16_bits" : "fx_half_bits") + "(hi)) << 16);\n}\n" + source.substr(kernel) +
        "extern \"C\" void fx_run(long long blocks, void** a) {\n"
        "  for (long long blk = 0; blk < blocks; ++blk) {\n"
        "    blockIdx.x = static_cast<unsigned>(blk);\n"
        "    std::barrier<> block(128);\n"
        "    std::barrier<> w0(32), w1(32), w2(32), w3(32);\n"
        "    fx_block_barrier = &block;\n"
        "    fx_warp_barrier[0] = &w0; fx_warp_barrier[1] = &w1;\n"
        "    fx_warp_barrier[2] = &w2; fx_warp_barrier[3] = &w3;\n"
        "    std::vector<std::thread> threads;\n"
        "    for (unsigned t = 0; t < 128; ++t) {\n"
        "      threads.emplace_back([=] {\n"
        "        threadIdx.x = t;\n"
        "        fxscope_attention(static_cast<const " +
        elem + "*>(a[0]), static_cast<const " + elem + "*>(a[1]), static_cast<const " + elem +
        "*>(a[2]), static_cast<const " + elem + "*>(a[3]), static_cast<" + elem +
        "*>(a[4]), static_cast<float*>(a[5]), nullptr, nullptr);\n"
        "      });\n"
        "    }\n"
        "    for (auto& th : threads) th.join();\n"
        "  }\n"
        "}\n";
    const auto cpp =
        std::filesystem::path(dir.path()) / ("attention_" + std::to_string(built) + ".cpp");
    const auto so =
        std::filesystem::path(dir.path()) / ("attention_" + std::to_string(built) + ".so");
    ++built;
    std::ofstream(cpp) << host;
    const char* cxx = std::getenv("CXX");
    const std::string command = std::string(cxx && *cxx ? cxx : "c++") +
                                " -std=c++20 -O1 -w -shared -fPIC -pthread -o " + so.string() +
                                " " + cpp.string();
    INFO(command);
    REQUIRE(std::system(command.c_str()) == 0);
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    INFO((lib ? "" : dlerror()));
    REQUIRE(lib);
    using Run = void (*)(long long, void**);
    const auto run = reinterpret_cast<Run>(dlsym(lib, "fx_run"));
    REQUIRE(run);

    const auto fill = [&](std::int64_t n) {
      std::vector<std::uint16_t> x(static_cast<std::size_t>(n));
      for (auto& e : x) e = test::half_bits(normal(rng), bf16);
      return x;
    };
    auto q = fill(c.batch * c.heads * c.rows * c.dim);
    auto k = fill(c.batch * c.heads * c.cols * c.dim);
    auto v = fill(c.batch * c.heads * c.cols * c.dim);
    std::vector<std::uint16_t> out(q.size());
    std::vector<float> lse_out(static_cast<std::size_t>(c.batch * c.heads * c.rows));
    void* args[] = {q.data(),   k.data(),      v.data(), bias.empty() ? nullptr : bias.data(),
                    out.data(), lse_out.data()};
    run(gpu::attention_blocks(s), args);
    dlclose(lib);

    double err = 0;
    double norm = 0;
    double lse_worst = 0;
    for (std::int64_t b = 0; b < c.batch; ++b) {
      for (std::int64_t h = 0; h < c.heads; ++h) {
        for (std::int64_t i = 0; i < c.rows; ++i) {
          std::vector<double> p(static_cast<std::size_t>(c.cols));
          double m = -INFINITY;
          for (std::int64_t j = 0; j < c.cols; ++j) {
            double dot = 0;
            for (std::int64_t d = 0; d < c.dim; ++d) {
              dot += test::half_value(
                         q[static_cast<std::size_t>(((b * c.heads + h) * c.rows + i) * c.dim + d)],
                         bf16) *
                     test::half_value(
                         k[static_cast<std::size_t>(((b * c.heads + h) * c.cols + j) * c.dim + d)],
                         bf16);
            }
            double sv = dot * s.scale;
            if (c.bias)
              sv += test::half_value(bias[static_cast<std::size_t>((b * c.rows + i) * c.cols + j)],
                                     bf16);
            if (c.causal && j > i) sv = -INFINITY;
            p[static_cast<std::size_t>(j)] = sv;
            m = std::max(m, sv);
          }
          double sum = 0;
          for (auto& e : p) sum += (e = std::exp(e - m));
          const auto row = static_cast<std::size_t>((b * c.heads + h) * c.rows + i);
          lse_worst = std::max(lse_worst, std::abs(lse_out[row] - (m + std::log(sum))));
          for (std::int64_t d = 0; d < c.dim; ++d) {
            double o = 0;
            for (std::int64_t j = 0; j < c.cols; ++j) {
              o += p[static_cast<std::size_t>(j)] *
                   test::half_value(
                       v[static_cast<std::size_t>(((b * c.heads + h) * c.cols + j) * c.dim + d)],
                       bf16);
            }
            o /= sum;
            const double got = test::half_value(
                out[row * static_cast<std::size_t>(c.dim) + static_cast<std::size_t>(d)], bf16);
            err += (o - got) * (o - got);
            norm += o * o;
          }
        }
      }
    }
    CHECK(std::sqrt(err / norm) < (bf16 ? 0.01 : 0.002));
    CHECK(lse_worst < 1e-3);
  }
}
