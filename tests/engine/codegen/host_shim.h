#pragma once
// The host shim that runs a generated kernel's body on the CPU as one thread of one block: a
// kernel written with block- and grid-stride loops and barriers between its phases does the same
// work that way, so its index arithmetic is checked without a GPU. The kernel's source from its
// extern "C" function on is built by the host's C++ compiler behind it (the prelude stays out:
// what it defines that a kernel uses is in the shim).

#include <dlfcn.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fxscope/codegen/kernel_codegen.h"
#include "scratch_dir.h"

namespace fxscope::test {

inline constexpr const char* kShim = R"(// one thread of one block
struct fx_dim3 { unsigned x = 0, y = 0, z = 0; };
static fx_dim3 threadIdx, blockIdx, blockDim{1, 1, 1}, gridDim{1, 1, 1};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
static inline void __syncthreads() {}
struct alignas(16) float4 { float x, y, z, w; };
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
typedef long long fx_i64;
template <class T, int N> struct alignas(sizeof(T) * N) fx_vec { T v[N]; };
// Kernels without barriers run thread by thread: the test sets which one before each call.
extern "C" void fx_set_thread(unsigned thread, unsigned block_dim) {
  threadIdx.x = thread;
  blockDim.x = block_dim;
}
#define FX_INF __builtin_inff()
template <class T> inline T fx_max(T a, T b) { return (a != a || a > b) ? a : b; }
inline float fx_max_nan(float a, float b) { return fx_max(a, b); }
#include <cmath>
// The device's reciprocal square root (within 2 ulp), as the host's two roundings.
static inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
// One thread: an atomic add is a plain one.
template <class T> inline T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
)";

// A folder of this process's own under the temp directory, named for PREFIX and the process id,
// where a test builds kernels on the host: one per prefix for the test binary's life, removed
// when it exits (a static ScratchDir).
inline std::filesystem::path host_dir(const std::string& prefix) {
  static std::map<std::string, std::unique_ptr<ScratchDir>> dirs;
  std::unique_ptr<ScratchDir>& dir = dirs[prefix];
  if (!dir) dir = std::make_unique<ScratchDir>(prefix);
  std::filesystem::create_directories(dir->path());
  return dir->path();
}

// Builds KERNEL's body (the source from its extern "C" function on) into a shared library in DIR,
// with EXTRA (what else of the prelude the kernel uses) after the shim.
inline void* build_on_host(const codegen::GeneratedKernel& kernel, const std::filesystem::path& dir,
                           const std::string& extra = "") {
  const auto at = kernel.source.find("extern \"C\"");
  REQUIRE(at != std::string::npos);
  const auto cpp = dir / (kernel.entry + ".cpp");
  const auto so = dir / (kernel.entry + ".so");
  std::ofstream(cpp) << kShim << extra << kernel.source.substr(at);
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

// A group of G's nodes named NODES, reading INPUTS and storing OUTPUTS (names of G's nodes), as
// the planner would hand it to codegen::generate.
inline fusion::KernelGroup group_of(const graph::Graph& g, const std::string& name,
                                    fusion::GroupKind kind, const std::vector<std::string>& nodes,
                                    const std::vector<std::string>& inputs,
                                    const std::vector<std::string>& outputs) {
  const auto ids = [&g](const std::vector<std::string>& names) {
    std::vector<graph::NodeId> out;
    for (const std::string& n : names) {
      const auto id = g.find(n);
      INFO("node " << n);
      REQUIRE(id);
      out.push_back(*id);
    }
    return out;
  };
  fusion::KernelGroup group;
  group.name = name;
  group.kind = kind;
  group.nodes = ids(nodes);
  group.inputs = ids(inputs);
  group.outputs = ids(outputs);
  return group;
}

// KERNEL built on the host in a folder of its own, its entry run by each thread of one block of
// THREADS with ARGS (its params, in order); the folder and the library removed after.
template <class... Args>
void run_one_block_on_host(const codegen::GeneratedKernel& kernel, unsigned threads, Args... args) {
  const auto dir = test::host_dir("fxscope-host-" + kernel.entry + "-");
  void* lib = build_on_host(kernel, dir);
  using Kernel = void (*)(Args...);
  const auto run = reinterpret_cast<Kernel>(dlsym(lib, kernel.entry.c_str()));
  REQUIRE(run);
  using SetThread = void (*)(unsigned, unsigned);
  const auto set_thread = reinterpret_cast<SetThread>(dlsym(lib, "fx_set_thread"));
  REQUIRE(set_thread);
  for (unsigned t = 0; t < threads; ++t) {
    set_thread(t, threads);
    run(args...);
  }
  dlclose(lib);
  std::filesystem::remove_all(dir);
}

}  // namespace fxscope::test
