// The attention forward on tensor cores (attention_mma.cpp): which real attention calls take it,
// that their sources compile with NVRTC (no GPU needed), and on a GPU that its outputs and
// log-sum-exps follow the f32 kernel's within the rounding of the probabilities to the operands'
// dtype, over tails of rows and keys, a causal mask and a bias broadcast over heads.

#include <cuda_runtime_api.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "attention_test_data.h"
#include "fxscope/gpu/attention_kernel.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "kernels/kernel_image.h"
#include "nvrtc_usable.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

// The forward attention specs of LOG's first unit in the default mode.
std::vector<gpu::AttentionSpec> forward_specs(const std::string& log) {
  std::vector<gpu::AttentionSpec> out;
  auto read = trace::read_trace(test::sample(log));
  REQUIRE(read);
  for (const auto& f : fusion::fuse_unit(read->units().front(), fusion::Mode::default_mode)) {
    for (graph::NodeId n = 0; n < f.post_grad.size(); ++n) {
      const std::string& target = f.post_grad.node(n).target;
      if (!gpu::is_attention_target(target) || gpu::is_attention_backward_target(target)) {
        continue;
      }
      auto spec = gpu::describe_attention(f.post_grad, n, {});
      REQUIRE(spec);
      out.push_back(*spec);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("bf16 and f16 attention of real models runs on tensor cores and compiles",
          "[gpu][nvrtc][attention]") {
  const bool compiles = test::nvrtc_unusable().empty();
  struct Case {
    const char* log;
    const char* dtype;
  };
  for (const Case c :
       {Case{"corpus/hf_llama_train_bf16", "bf16"}, Case{"corpus/hf_bert_mlm_train_fp16", "f16"},
        Case{"corpus/hf_t5_train_bf16", "bf16"}}) {
    INFO(c.log);
    const auto specs = forward_specs(c.log);
    REQUIRE_FALSE(specs.empty());
    for (auto s : specs) {
      REQUIRE(s.q.dtype == c.dtype);
      REQUIRE(gpu::attention_mma_fits(s));
      s.tensor_cores = true;
      const std::int64_t heads = s.q.sizes[0] * s.q.sizes[1];
      CHECK(gpu::attention_blocks(s) == heads * ((s.q.sizes[2] + 63) / 64));
      CHECK(gpu::attention_threads(s) == 128);
      const auto dim = static_cast<std::size_t>(s.q.sizes[3]);
      CHECK(gpu::attention_shared_bytes(s) == (64 * (dim + 8) + dim * 72) * 2);
      const std::string src = gpu::attention_source(s);
      CHECK_THAT(src, Catch::Contains(std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                                      c.dtype + "." + c.dtype + ".f32"));
      if (s.lse) CHECK_THAT(src, Catch::Contains("ma + logf(la)"));
      if (!compiles) continue;
      const auto cubin = gpu::compile_cuda(src, "fxscope_attention", {});
      INFO((cubin ? std::string() : cubin.error().message));
      CHECK(cubin);
    }
  }
  // f32 attention (GPT-2) keeps the CUDA-core kernels.
  for (const auto& s : forward_specs("gpt2_2layer")) CHECK_FALSE(gpu::attention_mma_fits(s));
  if (!compiles) WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
}

namespace {

struct MmaCase {
  std::string dtype;  // bf16 or f16
  std::int64_t batch, heads, rows, cols, dim;
  bool causal, bias;
};

// Runs SPEC's kernel on the device; OUT and LSE receive its results. Empty on success.
std::string run_attention(const gpu::AttentionSpec& spec, const std::vector<std::uint16_t>& q,
                          const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v,
                          const std::vector<std::uint16_t>& bias, std::vector<std::uint16_t>& out,
                          std::vector<float>& lse) {
  const auto cubin = gpu::compile_cuda(gpu::attention_source(spec), "fxscope_attention", {});
  if (!cubin) return cubin.error().message;
  auto image = gpu::KernelImage::load(cubin->cubin, "fxscope_attention", "attention");
  if (!image) return image.error().message;
  std::vector<void*> buffers;
  const auto upload = [&](const void* data, std::size_t bytes) {
    void* d = nullptr;
    if (bytes == 0) return d;
    if (cudaMalloc(&d, bytes) != cudaSuccess) return static_cast<void*>(nullptr);
    cudaMemcpy(d, data, bytes, cudaMemcpyHostToDevice);
    buffers.push_back(d);
    return d;
  };
  void* dq = upload(q.data(), q.size() * 2);
  void* dk = upload(k.data(), k.size() * 2);
  void* dv = upload(v.data(), v.size() * 2);
  void* db = upload(bias.data(), bias.size() * 2);
  void* dout = upload(out.data(), out.size() * 2);
  void* dlse = upload(lse.data(), lse.size() * 4);
  void* zero0 = nullptr;
  void* zero1 = nullptr;
  std::vector<void*> args = {&dq, &dk, &dv, &db, &dout, &dlse, &zero0, &zero1};
  std::string why;
  if (!dq || !dk || !dv || !dout || !dlse) {
    why = "cudaMalloc failed";
  } else if (const cudaError_t e =
                 (*image)->launch(gpu::attention_blocks(spec), gpu::attention_threads(spec),
                                  gpu::attention_shared_bytes(spec), args.data(), nullptr);
             e != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    why = std::string("launch failed: ") + cudaGetErrorString(cudaGetLastError());
  } else {
    cudaMemcpy(out.data(), dout, out.size() * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(lse.data(), dlse, lse.size() * 4, cudaMemcpyDeviceToHost);
  }
  for (void* b : buffers) cudaFree(b);
  return why;
}

}  // namespace

TEST_CASE("tensor-core attention follows the f32 kernel on the device", "[cuda][attention]") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    WARN("skipped, no CUDA device");
    return;
  }
  const std::vector<MmaCase> cases = {
      {"bf16", 2, 4, 128, 128, 64, false, true},  // a decoder's bias mask, whole tiles
      {"bf16", 1, 2, 100, 77, 32, true, false},   // causal, tails of rows and keys
      {"f16", 1, 3, 64, 200, 128, false, true},   // widest heads, bias broadcast over heads
      {"f16", 2, 2, 33, 16, 16, true, true},      // fewer keys than a tile, causal and bias
  };
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& c : cases) {
    INFO(c.dtype << " " << c.batch << "x" << c.heads << " rows " << c.rows << " keys " << c.cols
                 << " dim " << c.dim << (c.causal ? " causal" : "") << (c.bias ? " bias" : ""));
    const bool bf16 = c.dtype == "bf16";
    gpu::AttentionSpec s;
    s.q = test::dense_attention_tensor(c.batch, c.heads, c.rows, c.dim, c.dtype, 0);
    s.k = test::dense_attention_tensor(c.batch, c.heads, c.cols, c.dim, c.dtype, 1);
    s.v = test::dense_attention_tensor(c.batch, c.heads, c.cols, c.dim, c.dtype, 2);
    s.out = test::dense_attention_tensor(c.batch, c.heads, c.rows, c.dim, c.dtype, 3);
    s.causal = c.causal;
    s.scale = 1.0 / std::sqrt(static_cast<double>(c.dim));
    gpu::AttentionTensor lse = test::dense_attention_tensor(c.batch, c.heads, c.rows, 1, "f32", 4);
    lse.strides[3] = 0;
    s.lse = lse;
    std::vector<std::uint16_t> bias;
    if (c.bias) {
      gpu::AttentionTensor b = test::dense_attention_tensor(c.batch, 1, c.rows, c.cols, c.dtype, 5);
      b.strides[1] = 0;  // one mask for every head
      b.sizes[1] = c.heads;
      s.bias = b;
      for (std::int64_t i = 0; i < c.batch * c.rows * c.cols; ++i) {
        bias.push_back(test::half_bits(i % 7 == 0 ? -30.0f : 0.1f * normal(rng), bf16));
      }
    }
    const auto fill = [&](std::int64_t n) {
      std::vector<std::uint16_t> x(static_cast<std::size_t>(n));
      for (auto& e : x) e = test::half_bits(normal(rng), bf16);
      return x;
    };
    const auto q = fill(c.batch * c.heads * c.rows * c.dim);
    const auto k = fill(c.batch * c.heads * c.cols * c.dim);
    const auto v = fill(c.batch * c.heads * c.cols * c.dim);
    REQUIRE(gpu::attention_mma_fits(s));
    auto reference = s;  // the f32 kernel, a block a row
    auto mma = s;
    mma.tensor_cores = true;
    std::vector<std::uint16_t> out_ref(q.size()), out_mma(q.size());
    std::vector<float> lse_ref(static_cast<std::size_t>(c.batch * c.heads * c.rows));
    std::vector<float> lse_mma(lse_ref.size());
    const std::string why_ref = run_attention(reference, q, k, v, bias, out_ref, lse_ref);
    INFO(why_ref);
    REQUIRE(why_ref.empty());
    const std::string why_mma = run_attention(mma, q, k, v, bias, out_mma, lse_mma);
    INFO(why_mma);
    REQUIRE(why_mma.empty());
    double err = 0;
    double norm = 0;
    double worst = 0;
    for (std::size_t i = 0; i < out_ref.size(); ++i) {
      const double a = test::half_value(out_ref[i], bf16);
      const double b = test::half_value(out_mma[i], bf16);
      err += (a - b) * (a - b);
      norm += a * a;
      worst = std::max(worst, std::abs(a - b));
    }
    // Norm-wise, as the run compares outputs; the probabilities rounded to bf16 (8 bits) or
    // f16 (11 bits) before the product with the values bound it.
    CHECK(std::sqrt(err / norm) < (bf16 ? 0.01 : 0.002));
    CHECK(worst < (bf16 ? 0.06 : 0.01));
    double lse_worst = 0;
    for (std::size_t i = 0; i < lse_ref.size(); ++i) {
      lse_worst = std::max(lse_worst, static_cast<double>(std::abs(lse_ref[i] - lse_mma[i])));
    }
    CHECK(lse_worst < 1e-3);
  }
}

TEST_CASE("grouped-query attention without repeated keys is refused, naming the key",
          "[gpu][attention]") {
  // SDPA with enable_gqa: 2 key heads for 4 query heads. The kernels index keys by the query's
  // head, so running it would read past the keys' end.
  const std::string text =
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, q: \"bf16[1, 4, 32, 64][8192, 2048, 64, 1]cuda:0\", "
      "k: \"bf16[1, 2, 32, 64][4096, 2048, 64, 1]cuda:0\", "
      "v: \"bf16[1, 2, 32, 64][4096, 2048, 64, 1]cuda:0\"):\n"
      "        sdpa = torch.ops.aten._scaled_dot_product_flash_attention.default(q, k, v, 0.0, "
      "True)\n"
      "        out: \"bf16[1, 4, 32, 64][8192, 2048, 64, 1]cuda:0\" = sdpa[0]\n"
      "        return (out,)\n";
  const graph::Graph g = graph::parse_fx_readable(text, "gqa").graph;
  std::optional<graph::NodeId> sdpa;
  for (graph::NodeId n = 0; n < g.size(); ++n) {
    if (gpu::is_attention_target(g.node(n).target)) sdpa = n;
  }
  REQUIRE(sdpa);
  const auto spec = gpu::describe_attention(g, *sdpa, {});
  REQUIRE_FALSE(spec);
  CHECK_THAT(spec.error().message,
             Catch::Contains("k has 2 heads against the query's 4 (grouped-query attention"));
}
