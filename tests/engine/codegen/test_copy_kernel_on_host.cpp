// Layout copies and pooling run on the CPU: the generated CUDA C of every channels-last copy in
// the ResNet samples, and of ResNet-50's stem (batch norm, ReLU, max-pool), is built by the host's
// C++ compiler behind a small shim and checked element by element against what it stands for. The
// shim runs one thread of one block: a kernel written with block- and grid-stride loops and
// barriers between its phases does the same work that way, so the index arithmetic of both phases
// is checked without a GPU.

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <set>
#include <vector>

#include "codegen_samples.h"

using namespace fxscope;

namespace {

constexpr const char* kShim = R"(// one thread of one block
struct fx_dim3 { unsigned x = 0, y = 0, z = 0; };
static fx_dim3 threadIdx, blockIdx, blockDim{1, 1, 1}, gridDim{1, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
static inline void __syncthreads() {}
typedef long long fx_i64;
template <class T, int N> struct alignas(sizeof(T) * N) fx_vec { T v[N]; };
// Kernels without barriers run thread by thread: the test sets which one before each call.
extern "C" void fx_set_thread(unsigned thread, unsigned block_dim) {
  threadIdx.x = thread;
  blockDim.x = block_dim;
}
#define FX_INF __builtin_inff()
template <class T> inline T fx_max(T a, T b) { return (a != a || a > b) ? a : b; }
#include <cmath>
// The device's reciprocal square root (within 2 ulp), as the host's two roundings.
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
)";

using CopyKernel = void (*)(const float*, float*);
using StemKernel = void (*)(const float*, const float*, const float*, const float*, const float*,
                            float*);

// Builds KERNEL's body (the source from its extern "C" function on) into a shared library in DIR.
void* build_on_host(const codegen::GeneratedKernel& kernel, const std::filesystem::path& dir) {
  const auto at = kernel.source.find("extern \"C\"");
  REQUIRE(at != std::string::npos);
  const auto cpp = dir / (kernel.entry + ".cpp");
  const auto so = dir / (kernel.entry + ".so");
  std::ofstream(cpp) << kShim << kernel.source.substr(at);
  const char* cxx = std::getenv("CXX");
  const std::string command = std::string(cxx && *cxx ? cxx : "c++") +
                              " -std=c++17 -O1 -w -shared -fPIC -o " + so.string() + " " +
                              cpp.string();
  INFO(command);
  REQUIRE(std::system(command.c_str()) == 0);
  void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((lib ? "" : dlerror()));
  REQUIRE(lib);
  return lib;
}

}  // namespace

TEST_CASE("channels-last copies of the ResNet samples transpose each image exactly", "[codegen]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("fxscope-copy-on-host-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::set<std::string> shapes_seen;
  int checked = 0;
  int rgb_inputs = 0;
  int weights_3x3 = 0;
  for (const std::string sample : {"resnet18", "resnet50"}) {
    for (const auto& planned : test::planned_graphs(sample, fusion::Mode::default_mode)) {
      const graph::Graph& g = planned.fusion.post_grad;
      for (const auto& group : planned.fusion.ours.groups) {
        if (group.note != "layout copy to channels-last") continue;
        REQUIRE(group.inputs.size() == 1);
        const graph::TensorMeta& meta = *g.node(group.inputs.front()).meta;
        if (meta.dtype != "f32" || !shapes_seen.insert(meta.to_string()).second) continue;
        codegen::CodegenOptions options;
        options.hints = planned.hints;
        const auto kernel = codegen::generate(g, group, options);
        INFO(planned.where << " " << group.name << ": " << meta.to_string());
        REQUIRE(kernel);
        // The RGB input image moves 16-byte words both ways: a position a thread kept it at 68%
        // of a same-size copy in max-autotune on the H200.
        if (meta.sizes[1].value == 3 && meta.sizes[2].value == 224) {
          CHECK(kernel->summary.find("a thread 4 positions of 3 channels, 16-byte words") !=
                std::string::npos);
          ++rgb_inputs;
        }
        // 3x3 weights: through a tile, read and written in 16-byte words (written a channel a
        // thread, they sat at 69-77% of a same-size copy on the H200).
        if (meta.sizes[2].value == 3 && meta.sizes[3].value == 3) {
          CHECK(kernel->summary.find("16-byte reads and writes") != std::string::npos);
          ++weights_3x3;
        }
        REQUIRE(kernel->params.size() == 2);
        REQUIRE(kernel->params[1].written);
        void* lib = build_on_host(*kernel, dir);
        const auto run = reinterpret_cast<CopyKernel>(dlsym(lib, kernel->entry.c_str()));
        REQUIRE(run);

        const std::int64_t n = meta.sizes[0].value, c = meta.sizes[1].value;
        const std::int64_t h = meta.sizes[2].value, w = meta.sizes[3].value;
        std::int64_t extent = 1;
        for (std::size_t d = 0; d < 4; ++d)
          extent += (meta.sizes[d].value - 1) * meta.strides[d].value;
        std::vector<float> in(static_cast<std::size_t>(extent));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 65521) + 0.5f;
        std::vector<float> out(static_cast<std::size_t>(n * c * h * w), -1.0f);
        run(in.data(), out.data());
        std::int64_t wrong = 0;
        for (std::int64_t a = 0; a < n; ++a)
          for (std::int64_t b = 0; b < c; ++b)
            for (std::int64_t y = 0; y < h; ++y)
              for (std::int64_t x = 0; x < w; ++x) {
                const std::int64_t from = a * meta.strides[0].value + b * meta.strides[1].value +
                                          y * meta.strides[2].value + x * meta.strides[3].value;
                const std::int64_t to = ((a * h + y) * w + x) * c + b;
                wrong += out[static_cast<std::size_t>(to)] != in[static_cast<std::size_t>(from)];
              }
        CHECK(wrong == 0);
        ++checked;
        dlclose(lib);
      }
    }
  }
  std::filesystem::remove_all(dir);
  // Both forms the samples have are covered: 3x3 weights (all positions in one tile, read in
  // 16-byte words) and the 3-channel input and stem weights (a thread a position).
  CHECK(checked >= 3);
  CHECK(rgb_inputs >= 1);
  CHECK(weights_3x3 >= 4);  // 64 to 512 channels
  std::cout << checked << " distinct channels-last copies checked on the host\n";
}

TEST_CASE("ResNet-50's stem max-pool kernel pools the batch-normed image, padding included",
          "[codegen]") {
  const auto planned = test::planned_graphs("resnet50", fusion::Mode::default_mode);
  REQUIRE(!planned.empty());
  const auto kernel = test::kernel_of(planned.front(), "_low_memory_max_pool_with_offsets");
  const graph::Graph& g = planned.front().fusion.post_grad;
  // The convolution's output, the four batch-norm vectors (mean, variance, weight, bias), the
  // pooled values.
  REQUIRE(kernel.params.size() == 6);
  REQUIRE(kernel.params[5].written);
  CHECK(kernel.source.find("continue;") == std::string::npos);  // no branch around a read
  const auto dir =
      std::filesystem::temp_directory_path() / ("fxscope-pool-on-host-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  void* lib = build_on_host(kernel, dir);
  const auto run = reinterpret_cast<StemKernel>(dlsym(lib, kernel.entry.c_str()));
  REQUIRE(run);
  const graph::TensorMeta& in = *g.node(kernel.params[0].node).meta;
  const std::int64_t c = in.sizes[1].value, h = in.sizes[2].value, w = in.sizes[3].value;
  REQUIRE(c == 64);
  REQUIRE(h == 112);
  std::vector<float> x(static_cast<std::size_t>(c * h * w));
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 2001) - 1000) / 250.0f;
  }
  std::vector<float> mean(64), var(64), weight(64), bias(64);
  for (std::size_t k = 0; k < 64; ++k) {
    mean[k] = 0.01f * static_cast<float>(k);
    var[k] = 0.5f + 0.02f * static_cast<float>(k);
    weight[k] = 1.0f - 0.01f * static_cast<float>(k);
    bias[k] = -0.2f + 0.005f * static_cast<float>(k);
  }
  const std::int64_t oh = h / 2, ow = w / 2;
  std::vector<float> out(static_cast<std::size_t>(c * oh * ow), -7.0f);
  // One block of the kernel's own size, thread by thread: it has no barrier, and its loop
  // strides by the block size it was generated for.
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE(set_thread);
  REQUIRE(kernel.source.find("__syncthreads", kernel.source.find("extern \"C\"")) ==
          std::string::npos);
  for (int t = 0; t < kernel.block; ++t) {
    set_thread(static_cast<unsigned>(t), static_cast<unsigned>(kernel.block));
    run(x.data(), mean.data(), var.data(), weight.data(), bias.data(), out.data());
  }
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < c; ++k) {
    const auto u = static_cast<std::size_t>(k);
    const float scale = 1.0f / std::sqrt(var[u] + 1e-5f) * weight[u];
    for (std::int64_t y = 0; y < oh; ++y) {
      for (std::int64_t z = 0; z < ow; ++z) {
        // max_pool2d(kernel 3, stride 2, padding 1) of relu(batch norm(x)).
        float best = -std::numeric_limits<float>::infinity();
        for (std::int64_t dy = 0; dy < 3; ++dy) {
          for (std::int64_t dz = 0; dz < 3; ++dz) {
            const std::int64_t iy = y * 2 - 1 + dy, iz = z * 2 - 1 + dz;
            if (iy < 0 || iy >= h || iz < 0 || iz >= w) continue;
            const float v = x[static_cast<std::size_t>((k * h + iy) * w + iz)];
            best = std::max(best, std::max((v - mean[u]) * scale + bias[u], 0.0f));
          }
        }
        const float got = out[static_cast<std::size_t>((k * oh + y) * ow + z)];
        wrong += std::abs(got - best) > 1e-5f * std::max(1.0f, std::abs(best));
      }
    }
  }
  CHECK(wrong == 0);
  dlclose(lib);
  std::filesystem::remove_all(dir);
}
