// Fused groups whose reductions have rows of their own, from corpus logs' default plans, run on
// the CPU through the host shim (one thread a row) and checked element by element against the
// graph's ops computed here: MaxViT's head (a global average pool's mean over 7x7, then a layer
// norm over the 512 channels of that mean: the mean is a loop where the norm reads it) and
// Mixtral's RMS norm after the experts (a router's weights summed over k = 2 and the experts'
// outputs summed over k, both inline in the norm's passes over the model dim; the experts' sum,
// 14 distinct loads, is stored as well, as Inductor's has_exceeded_max_reads stores it); Swin-T's
// patch embedding in a training step (a convolution whose bias the two layer norms' kernel adds
// and stores back in place, read permuted).

#include <unistd.h>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"
#include "host_shim.h"
#include "samples.h"

using namespace fxscope;

namespace nested_reductions_on_host {

std::filesystem::path nested_dir() {
  return test::host_dir("fxscope-nested-reductions-on-host-");
}

// What the shim lacks for a reduction kernel of one thread a row: the team reduction of one
// thread is its own state, the combiners, and bf16's conversions.
constexpr const char* kReductionShim = R"(
struct FxSum { template <class T> T operator()(T a, T b) const { return a + b; } };
struct FxShiftedState { float s, q; };
struct FxShiftedSum {
  FxShiftedState operator()(FxShiftedState a, FxShiftedState b) const {
    return {a.s + b.s, a.q + b.q};
  }
};
struct FxWelfordState { float mean, m2, n; };
struct FxWelford {};
inline FxWelfordState fx_welford_add(FxWelfordState a, float x) {
  const float n = a.n + 1.0f;
  const float delta = x - a.mean;
  const float mean = a.mean + delta / n;
  return {mean, a.m2 + delta * (x - mean), n};
}
template <class T, class C> inline T fx_team_reduce(T v, C, int) { return v; }
struct fx_bf16 { unsigned short bits; };
#include <cstring>
inline float fx_b2f(fx_bf16 b) {
  const unsigned u = static_cast<unsigned>(b.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline fx_bf16 fx_f2b(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return fx_bf16{static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16)};
}
)";

float bf16_round(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u = ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) << 16;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

// The default plan's group of the first unit of corpus log LOG named NAME, and its graph.
std::pair<graph::Graph, fusion::KernelGroup> corpus_group(const std::string& log_name,
                                                          const std::string& group_name) {
  auto log = trace::read_trace(test::sample("corpus/" + log_name));
  REQUIRE(log);
  const trace::CompileUnit* unit = nullptr;
  for (const auto& u : log->units()) {
    if (u.aot_graph() != nullptr) {
      unit = &u;
      break;
    }
  }
  REQUIRE(unit);
  auto fused = fusion::fuse_unit(*unit, fusion::Mode::default_mode);
  REQUIRE(!fused.empty());
  for (const auto& group : fused.front().ours.groups) {
    if (group.name == group_name) return {std::move(fused.front().post_grad), group};
  }
  FAIL("no group " << group_name);
  return {};
}

template <std::size_t... I>
void call_with_pointers(void* entry, const std::vector<void*>& args, std::index_sequence<I...>) {
  using Entry = void (*)(decltype((void)I, static_cast<void*>(nullptr))...);
  reinterpret_cast<Entry>(entry)(args[I]...);
}

// Generates GROUP's kernel with one thread a row and runs it with the buffer each param names
// (by node name) from BUFFERS.
void run_group(const graph::Graph& g, const fusion::KernelGroup& group,
               const std::map<std::string, void*>& buffers, const std::string& summary) {
  codegen::CodegenOptions options;
  options.config = codegen::LaunchConfig{1, 1, 1};
  const auto k = codegen::generate(g, group, options);
  INFO((k ? k->source : k.error().message));
  REQUIRE(k);
  CHECK(k->summary == summary);
  void* lib = test::build_on_host(*k, nested_dir(), kReductionShim);
  std::vector<void*> args;
  for (const codegen::KernelParam& p : k->params) {
    INFO(g.node(p.node).name);
    REQUIRE(buffers.count(g.node(p.node).name));
    args.push_back(buffers.at(g.node(p.node).name));
  }
  void* entry = dlsym(lib, k->entry.c_str());
  REQUIRE(entry);
  switch (args.size()) {
    case 8:
      call_with_pointers(entry, args, std::make_index_sequence<8>{});
      break;
    case 11:
      call_with_pointers(entry, args, std::make_index_sequence<11>{});
      break;
    case 14:
      call_with_pointers(entry, args, std::make_index_sequence<14>{});
      break;
    default:
      FAIL("a kernel of " << args.size() << " params");
  }
  dlclose(lib);
}

float wave(std::size_t i, std::size_t a, std::size_t m) {
  return static_cast<float>((i * a + 3) % m) / static_cast<float>(m) - 0.5f;
}

}  // namespace nested_reductions_on_host

using namespace nested_reductions_on_host;

TEST_CASE("MaxViT's pooled layer norm computes the pool's mean in a loop where it reads it",
          "[codegen]") {
  const auto [g, group] = corpus_group(
      "tv_maxvit_small", "triton_per_fused_add_mean_mul_permute_reshape_rsqrt_sub_var_mean_110");
  // add_102 is [2, 1, 49, 512] stored channel-major per image (strides 25088, 49, 1, 49).
  std::vector<float> add_102(2 * 25088), arg207(512), mm(98 * 512), w(512), b(512);
  for (std::size_t i = 0; i < add_102.size(); ++i) add_102[i] = wave(i, 37, 101);
  for (std::size_t i = 0; i < mm.size(); ++i) mm[i] = wave(i, 53, 97) * 2.0f;
  for (std::size_t i = 0; i < 512; ++i) {
    arg207[i] = wave(i, 11, 13) + 1.0f;
    w[i] = wave(i, 7, 17) + 1.0f;
    b[i] = wave(i, 5, 19);
  }
  std::vector<float> var(2, -99.0f), mean(2, -99.0f), out(2 * 512, -99.0f);
  run_group(g, group,
            {{"add_102", add_102.data()},
             {"arg207_1", arg207.data()},
             {"mm_default_1", mm.data()},
             {"arg208_1", w.data()},
             {"arg209_1", b.data()},
             {"getitem_56", var.data()},
             {"getitem_57", mean.data()},
             {"add_108", out.data()}},
            "reduction 2 rows x 512 (var_mean), 2 passes, looped, 1 threads per row");
  for (std::size_t img = 0; img < 2; ++img) {
    std::vector<double> pooled(512, 0.0);
    for (std::size_t c = 0; c < 512; ++c) {
      for (std::size_t p = 0; p < 49; ++p) {
        const double x = add_102[img * 25088 + p + c * 49];
        const double y = static_cast<double>(arg207[c]) + mm[(img * 49 + p) * 512 + c];
        pooled[c] += x + y;
      }
      pooled[c] /= 49.0;
    }
    double mu = 0.0, m2 = 0.0;
    for (const double v : pooled) mu += v / 512.0;
    for (const double v : pooled) m2 += (v - mu) * (v - mu) / 512.0;
    INFO("image " << img);
    CHECK(mean[img] == Approx(mu).margin(1e-5));
    CHECK(var[img] == Approx(m2).epsilon(1e-4));
    std::size_t wrong = 0;
    for (std::size_t c = 0; c < 512; ++c) {
      const double want = (pooled[c] - mu) / std::sqrt(m2 + 1e-5) * w[c] + b[c];
      if (std::fabs(out[img * 512 + c] - want) > 1e-4 * (1.0 + std::fabs(want))) ++wrong;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("Mixtral's RMS norm after the experts sums the top-k inline in its passes", "[codegen]") {
  const auto [g, group] = corpus_group(
      "hf_mixtral_bf16",
      "triton_per_fused_add_convert_element_type_div_embedding_full_ge_index_mean_mul_pow_"
      "reshape_rsqrt_sort_sum_unsqueeze_where_18");
  constexpr std::size_t T = 256, D = 256, S = 512, V = 2048;
  std::vector<long long> tokens(T), inverse(S), expert(S), perm(S);
  std::vector<float> table(V * D), experts_out(S * D), router(T * 2), norm_w(D);
  std::vector<std::uint16_t> mm(T * D);
  for (std::size_t t = 0; t < T; ++t) tokens[t] = static_cast<long long>((t * 97 + 5) % V);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = wave(i, 31, 89);
  for (std::size_t i = 0; i < mm.size(); ++i) {
    const float f = bf16_round(wave(i, 41, 83));
    std::uint32_t u;
    std::memcpy(&u, &f, 4);
    mm[i] = static_cast<std::uint16_t>(u >> 16);
  }
  for (std::size_t i = 0; i < experts_out.size(); ++i) experts_out[i] = wave(i, 59, 103) * 3.0f;
  for (std::size_t i = 0; i < router.size(); ++i) router[i] = wave(i, 13, 29) + 0.75f;
  for (std::size_t i = 0; i < D; ++i) norm_w[i] = wave(i, 3, 11) + 1.0f;
  // Two permutations of the 512 (token, slot) pairs, and expert ids with some past the 4
  // experts (a sentinel slot, whose output is masked to zero).
  for (std::size_t s = 0; s < S; ++s) {
    inverse[s] = static_cast<long long>((s * 173 + 9) % S);
    perm[s] = static_cast<long long>((s * 301 + 77) % S);
    expert[s] = static_cast<long long>((s * 7) % 5);
  }
  std::vector<float> sum_3(T * D, -99.0f), mul_13(T * D, -99.0f);
  std::vector<std::uint16_t> out25(T * D), out29(T * D), out33(T * D);
  run_group(g, group,
            {{"arg0_1", tokens.data()},
             {"arg1_1", table.data()},
             {"mm_3", mm.data()},
             {"index_put", inverse.data()},
             {"getitem_11", expert.data()},
             {"grouped_mm_fallback_1", experts_out.data()},
             {"getitem_12", perm.data()},
             {"getitem_9", router.data()},
             {"arg12_1", norm_w.data()},
             {"sum_3", sum_3.data()},
             {"mul_13", mul_13.data()},
             {"convert_element_type_25", out25.data()},
             {"convert_element_type_29", out29.data()},
             {"convert_element_type_33", out33.data()}},
            "reduction 256 rows x 256 (mean), 2 passes, looped, 1 threads per row");
  std::size_t wrong_sum = 0, wrong_norm = 0;
  for (std::size_t t = 0; t < T; ++t) {
    std::vector<double> x(D);
    double ms = 0.0;
    for (std::size_t c = 0; c < D; ++c) {
      std::uint32_t u = static_cast<std::uint32_t>(mm[t * D + c]) << 16;
      float m;
      std::memcpy(&m, &u, 4);
      double experts = 0.0;
      for (std::size_t k = 0; k < 2; ++k) {
        const auto p = static_cast<std::size_t>(inverse[t * 2 + k]);
        const auto f = static_cast<std::size_t>(perm[p]);
        const double weight = router[f] / (static_cast<double>(router[f / 2 * 2]) +
                                           static_cast<double>(router[f / 2 * 2 + 1]));
        const double proj = expert[p] >= 4 ? 0.0 : experts_out[p * D + c];
        experts += proj * weight;
      }
      const double v =
          static_cast<double>(table[static_cast<std::size_t>(tokens[t]) * D + c]) + m + experts;
      x[c] = v;
      ms += v * v / D;
      if (std::fabs(sum_3[t * D + c] - experts) > 1e-5 * (1.0 + std::fabs(experts))) ++wrong_sum;
    }
    const double rs = 1.0 / std::sqrt(ms + 1e-5);
    for (std::size_t c = 0; c < D; ++c) {
      const double want = norm_w[c] * (x[c] * rs);
      if (std::fabs(mul_13[t * D + c] - want) > 1e-4 * (1.0 + std::fabs(want))) ++wrong_norm;
      for (const auto* out : {&out25, &out29, &out33}) {
        std::uint32_t u = static_cast<std::uint32_t>((*out)[t * D + c]) << 16;
        float got;
        std::memcpy(&got, &u, 4);
        if (std::fabs(got - want) > 8e-3 * (1.0 + std::fabs(want))) ++wrong_norm;
      }
    }
  }
  CHECK(wrong_sum == 0);
  CHECK(wrong_norm == 0);
}

TEST_CASE("Swin-T's patch norms add the convolution's bias once and store it in place",
          "[codegen]") {
  // The bf16 convolution [2, 96, 56, 56] ran without its bias; the kernel's rows are its pixels
  // (the permute to channels-last), each a layer norm over 96 channels, then the statistics of a
  // second layer norm (whose normalization, cast into windows, is a kernel of its own).
  // It stores the biased value back into the convolution's buffer at the element it loaded, after
  // its last load of it: stored at the row's own position, or before a later pass read it again,
  // it corrupted other rows and added the bias twice (a 5.1 error on the GPU).
  const auto [g, group] = corpus_group(
      "tv_swin_t_train_bf16",
      "triton_red_fused_add_clone_convert_element_type_convolution_mul_permute_rsqrt_sub_var_mean_"
      "3");
  constexpr std::size_t N = 2, C = 96, HW = 56 * 56, P = N * HW;
  std::vector<std::uint16_t> conv(N * C * HW);
  std::vector<float> raw(conv.size());
  for (std::size_t i = 0; i < conv.size(); ++i) {
    raw[i] = bf16_round(wave(i, 37, 101) * 4.0f);
    std::uint32_t u;
    std::memcpy(&u, &raw[i], 4);
    conv[i] = static_cast<std::uint16_t>(u >> 16);
  }
  std::vector<float> bias(C), w1(C), b1(C);
  for (std::size_t c = 0; c < C; ++c) {
    bias[c] = wave(c, 7, 23) * 8.0f;
    w1[c] = wave(c, 5, 11) + 1.0f;
    b1[c] = wave(c, 3, 13);
  }
  std::vector<float> var(P, -99.0f), mean(P, -99.0f), rs(P), add_1(P * C), var2(P), mean2(P),
      rs2(P);
  run_group(g, group,
            {{"primals_2", bias.data()},
             {"primals_4", w1.data()},
             {"primals_5", b1.data()},
             {"convolution", conv.data()},
             {"getitem", var.data()},
             {"getitem_1", mean.data()},
             {"rsqrt", rs.data()},
             {"add_1", add_1.data()},
             {"getitem_2", var2.data()},
             {"getitem_3", mean2.data()},
             {"rsqrt_1", rs2.data()}},
            "reduction 6272 rows x 96 (var_mean, var_mean), 2 passes, looped, 1 threads per row");
  std::size_t wrong_conv = 0, wrong_stats = 0, wrong_norm = 0;
  for (std::size_t n = 0; n < N; ++n) {
    for (std::size_t p = 0; p < HW; ++p) {
      const std::size_t row = n * HW + p;
      double mu = 0.0, m2 = 0.0;
      for (std::size_t c = 0; c < C; ++c) mu += (raw[(n * C + c) * HW + p] + bias[c]) / double(C);
      for (std::size_t c = 0; c < C; ++c) {
        const double d = raw[(n * C + c) * HW + p] + bias[c] - mu;
        m2 += d * d / double(C);
      }
      if (std::fabs(mean[row] - mu) > 1e-4 || std::fabs(var[row] - m2) > 1e-4 * (1.0 + m2)) {
        ++wrong_stats;
      }
      for (std::size_t c = 0; c < C; ++c) {
        const std::size_t at = (n * C + c) * HW + p;
        std::uint32_t u = static_cast<std::uint32_t>(conv[at]) << 16;
        float stored;
        std::memcpy(&stored, &u, 4);
        if (stored != bf16_round(raw[at] + bias[c])) ++wrong_conv;
        const double want = (raw[at] + bias[c] - mu) / std::sqrt(m2 + 1e-5) * w1[c] + b1[c];
        if (std::fabs(add_1[row * C + c] - want) > 1e-4 * (1.0 + std::fabs(want))) ++wrong_norm;
      }
    }
  }
  CHECK(wrong_conv == 0);
  CHECK(wrong_stats == 0);
  CHECK(wrong_norm == 0);
}
