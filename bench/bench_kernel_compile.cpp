// What `fxscope-cli run` compiles before it runs a log's unit (the one it takes by default), and
// how long NVRTC takes for it on this machine, without a GPU:
//   bench_kernel_compile LOG [CACHE_DIR]
// Every mode's steps are planned as run plans them (forward and, for a training unit, backward;
// max-autotune with its launch variants), the generated sources gathered, the distinct kernels
// counted (sources differing only in names are one kernel, EngineCompiler's kernel_key), and all of
// them compiled for sm_90 on every core into CACHE_DIR (default: an empty temporary folder), the
// seconds printed. A run on an sm_90 device given that cache ($XDG_CACHE_HOME/fxscope/kernels)
// finds those kernels built; its f32 reference and the sizes it binds at run time may need more.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "fxscope/trace/trace_log.h"

namespace fs = std::filesystem;
using namespace fxscope;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: bench_kernel_compile LOG [CACHE_DIR]\n");
    return 2;
  }
  auto log = trace::read_trace(argv[1]);
  if (!log) {
    std::fprintf(stderr, "bench_kernel_compile: %s\n", log.error().message.c_str());
    return 1;
  }
  const trace::CompileUnit* chosen = gpu::default_run_unit(*log);
  if (chosen == nullptr) {
    std::fprintf(stderr, "bench_kernel_compile: %s holds no unit run would take\n", argv[1]);
    return 1;
  }
  const trace::CompileUnit& unit = *chosen;
  const ops::SymbolHints hints = gpu::unit_hints(unit);
  const fs::path cache = argc == 3 ? fs::path(argv[2])
                                   : fs::temp_directory_path() /
                                         ("fxscope_compile_bench_" + std::to_string(::getpid()));
  fs::create_directories(cache);

  std::vector<gpu::PlannedSteps> plans;  // owns the sources the pointers below refer to
  std::vector<const std::string*> sources;
  std::set<std::string> keys;
  std::printf("%-16s %-9s %8s %9s\n", "mode", "graph", "sources", "kernels");
  for (const fusion::Mode mode : fusion::kAllModes) {
    std::vector<fusion::GraphFusion> graphs = fusion::fuse_unit(unit, mode);
    if (graphs.size() > 1) graphs.resize(1);
    if (auto backward = gpu::backward_fusion(unit, mode)) graphs.push_back(std::move(*backward));
    for (std::size_t k = 0; k < graphs.size(); ++k) {
      const fusion::GraphFusion& f = graphs[k];
      // As run plans on an H100 or H200: its default seed, thread block clusters.
      plans.push_back(gpu::plan_steps(f.post_grad, f.ours,
                                      gpu::with_upper_bounds(f.post_grad, hints),
                                      mode == fusion::Mode::max_autotune, 0, true));
      std::set<std::string> mine;
      const std::vector<const std::string*> own = gpu::kernel_sources(plans.back());
      for (const std::string* s : own) {
        mine.insert(gpu::kernel_key(*s).key);
        keys.insert(gpu::kernel_key(*s).key);
        sources.push_back(s);
      }
      std::printf("%-16s %-9s %8zu %9zu\n", fusion::to_string(mode).data(),
                  k == 0 ? "forward" : "backward", own.size(), mine.size());
    }
  }
  const gpu::EngineCompiler compiler("sm_90", cache.string());
  const auto start = std::chrono::steady_clock::now();
  compiler.precompile(sources,
                      [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "all modes: %zu sources, %zu distinct kernels, compiled in %.1f s on %u threads into %s\n",
      sources.size(), keys.size(), seconds, std::thread::hardware_concurrency(),
      cache.string().c_str());
  return 0;
}
