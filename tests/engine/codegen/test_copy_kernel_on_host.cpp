// Layout copies run on the CPU: the generated CUDA C of every channels-last copy in the ResNet
// samples is built by the host's C++ compiler behind a small shim and checked element by element
// against the transpose it stands for. The shim runs one thread of one block: a kernel written
// with block- and grid-stride loops and barriers between its phases does the same work that way,
// so the index arithmetic of both phases is checked without a GPU.

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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
)";

using CopyKernel = void (*)(const float*, float*);

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
  std::cout << checked << " distinct channels-last copies checked on the host\n";
}
