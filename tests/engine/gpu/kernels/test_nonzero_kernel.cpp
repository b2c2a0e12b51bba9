// nonzero's generated kernel: one block of whole warps, each thread a chunk of the elements, the
// block's scan of the chunks' counts placing each chunk's coordinates. It compiles with NVRTC for
// sm_90 (no GPU needed); on a GPU it writes the host's coordinates, then -1 in the rows past the
// count.

#include <cuda_runtime_api.h>
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "nvrtc_usable.h"
#include "one_op_kernel.h"

using namespace fxscope;

namespace {

struct NonzeroCase {
  std::string dtype;                // b8, f32 or i64
  std::vector<std::int64_t> sizes;  // contiguous
  int threads = 0;                  // the block the kernel takes
};

const std::vector<NonzeroCase>& nonzero_cases() {
  static const std::vector<NonzeroCase> cases = {
      {"b8", {256, 2}, 512},       // the sparse MoE's routing mask: a thread an element
      {"f32", {3000}, 1024},       // chunks of 3
      {"i64", {70, 50, 3}, 1024},  // chunks of 11, three coordinates a row
      {"f32", {5}, 32},            // fewer elements than a warp
  };
  return cases;
}

std::int64_t numel(const NonzeroCase& c) {
  std::int64_t n = 1;
  for (const std::int64_t s : c.sizes) n *= s;
  return n;
}

std::string list(const std::vector<std::int64_t>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out;
}

graph::Graph nonzero_graph(const NonzeroCase& c) {
  std::vector<std::int64_t> strides(c.sizes.size(), 1);
  for (std::size_t d = c.sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * c.sizes[d];
  const auto rank = static_cast<std::int64_t>(c.sizes.size());
  const std::string in = c.dtype + "[" + list(c.sizes) + "][" + list(strides) + "]cuda:0";
  // Sized by the count's upper bound, as a run's first call binds it.
  const std::string out = "i64[" + std::to_string(numel(c)) + ", " + std::to_string(rank) + "][" +
                          std::to_string(rank) + ", 1]cuda:0";
  return test::one_op_graph(in, "nonzero", out, "torch.ops.aten.nonzero.default(arg0_1)");
}

Result<codegen::GeneratedKernel> nonzero_kernel(const graph::Graph& g) {
  return test::eager_kernel(g, "nonzero");
}

// Every third element or so nonzero, in a pattern no chunk boundary follows.
bool is_set(std::int64_t i) {
  return (i * 7 + i / 13) % 3 == 0;
}

// The host's answer: each nonzero element's coordinates in row-major order, -1 past the count.
std::vector<long long> coordinates(const NonzeroCase& c) {
  const auto n = numel(c);
  const auto rank = static_cast<std::int64_t>(c.sizes.size());
  std::vector<long long> out(static_cast<std::size_t>(n * rank), -1);
  std::int64_t row = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!is_set(i)) continue;
    std::int64_t rest = i;
    for (std::int64_t d = rank; d-- > 0;) {
      out[static_cast<std::size_t>(row * rank + d)] = rest % c.sizes[static_cast<std::size_t>(d)];
      rest /= c.sizes[static_cast<std::size_t>(d)];
    }
    ++row;
  }
  return out;
}

// Runs K on the case's elements (is_set's pattern in T) and returns the coordinates it wrote over
// rows of -99, or nothing, with WHY, where the run failed.
template <class T>
std::vector<long long> nonzero_on_device(const codegen::GeneratedKernel& k, const NonzeroCase& c,
                                         std::string& why) {
  std::vector<T> in(static_cast<std::size_t>(numel(c)));
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = is_set(static_cast<std::int64_t>(i)) ? T(1 + i % 4) : T(0);
  }
  std::vector<long long> out(in.size() * c.sizes.size(), -99);
  if (!test::run_on_device(k, in, out, why)) out.clear();
  return out;
}

}  // namespace

TEST_CASE("nonzero takes one block of whole warps, no more than its elements need, and compiles",
          "[gpu][nvrtc][nonzero]") {
  const bool compiles = test::nvrtc_unusable().empty();
  for (const auto& c : nonzero_cases()) {
    const auto g = nonzero_graph(c);
    const auto k = nonzero_kernel(g);
    INFO(c.dtype << "[" << list(c.sizes) << "]");
    REQUIRE(k);
    CHECK(k->config.block == c.threads);
    CHECK(k->grid == 1);
    CHECK_THAT(k->source, Catch::Contains("fx_block_inclusive_sum(count)"));
    CHECK(k->params.size() == 2);
    if (!compiles) continue;  // NVRTC is not usable here: the sources are still checked above
    CHECK(test::nvrtc_error(*k).empty());
  }
  if (!compiles) WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
}

TEST_CASE("nonzero writes the host's coordinates, then -1 past the count, on the device",
          "[cuda][nonzero]") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    WARN("skipped, no CUDA device");
    return;
  }
  for (const auto& c : nonzero_cases()) {
    const auto g = nonzero_graph(c);
    const auto k = nonzero_kernel(g);
    REQUIRE(k);
    INFO(c.dtype << "[" << list(c.sizes) << "]");
    std::string why;
    std::vector<long long> out;
    if (c.dtype == "b8") out = nonzero_on_device<std::uint8_t>(*k, c, why);
    if (c.dtype == "f32") out = nonzero_on_device<float>(*k, c, why);
    if (c.dtype == "i64") out = nonzero_on_device<long long>(*k, c, why);
    INFO(why);
    REQUIRE(!out.empty());
    CHECK(out == coordinates(c));
  }
}
