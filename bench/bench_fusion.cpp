// Prints, per bundled sample, kernel launches planned vs Inductor's and the share of Inductor's
// kernels planned exactly, then the time to plan the largest post-grad graphs (median):
//   bench_fusion [REPEATS]   (default 15)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/trace/trace_log.h"

namespace {

using Clock = std::chrono::steady_clock;

const std::vector<std::string> kSamples = {"resnet18",         "resnet50",
                                           "gpt2_2layer",      "gpt2_12layer",
                                           "gpt2_48layer",     "residual_mlp",
                                           "pointwise_chain",  "residual_mlp_train",
                                           "graph_breaks",     "reduce_overhead_dynamic",
                                           "max_autotune_mlp", "gpt2_2layer_eager_attention",
                                           "llama_48layer"};

fxscope::fusion::Mode mode_of(const std::string& sample) {
  if (sample == "max_autotune_mlp") return fxscope::fusion::Mode::max_autotune;
  if (sample == "reduce_overhead_dynamic") return fxscope::fusion::Mode::reduce_overhead;
  return fxscope::fusion::Mode::default_mode;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 15;
  std::printf("%-28s %8s %10s %14s\n", "sample", "ours", "inductor", "exact kernels");
  for (const std::string& sample : kSamples) {
    auto log = fxscope::trace::read_trace(std::string(FXSCOPE_SAMPLES_DIR) + "/" + sample);
    if (!log) {
      std::fprintf(stderr, "bench_fusion: %s\n", log.error().message.c_str());
      return 1;
    }
    std::size_t ours = 0, theirs = 0, exact = 0, kernels = 0;
    for (const auto& unit : log->units()) {
      for (const auto& f : fxscope::fusion::fuse_unit(unit, mode_of(sample))) {
        ours += f.agreement.our_launches;
        theirs += f.agreement.inductor_launches;
        exact += f.agreement.exact_count();
        kernels += f.agreement.kernels.size();
      }
    }
    std::printf(
        "%-28s %8zu %10zu %7zu/%-3zu %5.1f%%\n", sample.c_str(), ours, theirs, exact, kernels,
        kernels ? 100.0 * static_cast<double>(exact) / static_cast<double>(kernels) : 100.0);
  }
  // The planning-time target is for a 5,000-node ATen graph: the LLaMA's post-grad graph.
  for (const char* sample : {"gpt2_48layer", "llama_48layer"}) {
    auto log = fxscope::trace::read_trace(std::string(FXSCOPE_SAMPLES_DIR) + "/" + sample);
    if (!log || log->units().empty()) return 1;
    auto fused =
        fxscope::fusion::fuse_unit(log->units().front(), fxscope::fusion::Mode::default_mode);
    const auto& graph = fused.front().post_grad;
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
      const auto t0 = Clock::now();
      const auto plan = fxscope::fusion::plan(graph, fxscope::fusion::Mode::default_mode);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (plan.groups.empty()) return 1;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("plan %s post-grad graph (%zu nodes): %.2f ms median of %d (target < 50 ms)\n",
                sample, graph.size(), ms[ms.size() / 2], repeats);
  }
  return 0;
}
