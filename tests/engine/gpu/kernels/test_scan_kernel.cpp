// cumsum's generated kernel: a scan of 64 elements or more takes a block a row (an MoE router's
// cumsum over 1,024 tokens for 8 experts), a shorter one a thread a row. Both compile with NVRTC
// for sm_90 (no GPU needed); on a GPU each matches the host's running sums, exactly for integers.

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

struct ScanCase {
  std::string dtype;  // f32 or i64
  std::int64_t rows_dim = 0;
  std::int64_t cols_dim = 0;
  int dim = 0;           // the scanned dim of [rows_dim, cols_dim]
  const char* how = "";  // the summary's last words
};

const std::vector<ScanCase>& scan_cases() {
  static const std::vector<ScanCase> cases = {
      {"i64", 1024, 8, 0, "a block a row"},  // the MoE router's expert positions
      {"f32", 3, 700, 1, "a block a row"},   // along the innermost dim, chunks of 3
      {"f32", 40, 6, 0, "a thread a row"},   // short: one thread walks each column
  };
  return cases;
}

graph::Graph scan_graph(const ScanCase& c) {
  const std::string sizes = std::to_string(c.rows_dim) + ", " + std::to_string(c.cols_dim);
  const std::string meta = c.dtype + "[" + sizes + "][" + std::to_string(c.cols_dim) + ", 1]cuda:0";
  return test::one_op_graph(meta, "cumsum", meta,
                            "torch.ops.aten.cumsum.default(arg0_1, " + std::to_string(c.dim) + ")");
}

Result<codegen::GeneratedKernel> scan_kernel(const graph::Graph& g) {
  return test::eager_kernel(g, "cumsum");
}

// The host's running sums of IN ([ROWS_DIM, COLS_DIM], row-major) along DIM.
template <class T>
std::vector<T> running_sums(const std::vector<T>& in, const ScanCase& c) {
  std::vector<T> out(in.size());
  const std::int64_t outer = c.dim == 0 ? c.cols_dim : c.rows_dim;
  const std::int64_t length = c.dim == 0 ? c.rows_dim : c.cols_dim;
  for (std::int64_t o = 0; o < outer; ++o) {
    T acc = 0;
    for (std::int64_t j = 0; j < length; ++j) {
      const std::int64_t at = c.dim == 0 ? j * c.cols_dim + o : o * c.cols_dim + j;
      acc += in[static_cast<std::size_t>(at)];
      out[static_cast<std::size_t>(at)] = acc;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a long cumsum takes a block a row, a short one a thread a row, and both compile",
          "[gpu][nvrtc][scan]") {
  const bool compiles = test::nvrtc_unusable().empty();
  for (const auto& c : scan_cases()) {
    const auto g = scan_graph(c);
    const auto k = scan_kernel(g);
    INFO(c.dtype << "[" << c.rows_dim << ", " << c.cols_dim << "] along " << c.dim);
    REQUIRE(k);
    CHECK_THAT(k->summary, Catch::EndsWith(c.how));
    CHECK(k->params.size() == 2);
    if (!compiles) continue;  // NVRTC is not usable here: the sources are still checked above
    CHECK(test::nvrtc_error(*k).empty());
  }
  if (!compiles) WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
}

TEST_CASE("both scans match the host's running sums on the device", "[cuda][scan]") {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    WARN("skipped, no CUDA device");
    return;
  }
  for (const auto& c : scan_cases()) {
    const auto g = scan_graph(c);
    const auto k = scan_kernel(g);
    REQUIRE(k);
    INFO(c.dtype << "[" << c.rows_dim << ", " << c.cols_dim << "] along " << c.dim);
    const auto n = static_cast<std::size_t>(c.rows_dim * c.cols_dim);
    std::string why;
    if (c.dtype == "i64") {
      // One-hot rows as the router's are (expert i % 8 of token i), then every value 0..4.
      std::vector<long long> in(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<long long>((i * 7 + i / 8) % 5);
      std::vector<long long> out(n);
      const bool ran = test::run_on_device(*k, in, out, why);
      INFO(why);
      REQUIRE(ran);
      CHECK(out == running_sums(in, c));
    } else {
      std::vector<float> in(n);
      for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>((i * 37) % 11) * 0.25f - 1.0f;
      std::vector<float> out(n);
      const bool ran = test::run_on_device(*k, in, out, why);
      INFO(why);
      REQUIRE(ran);
      // Quarters of small integers: every partial sum is exact in f32, in any order.
      CHECK(out == running_sums(in, c));
    }
  }
}
