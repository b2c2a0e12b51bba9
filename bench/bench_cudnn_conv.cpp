// Host and device time per call of every convolution of a sample's first unit (post-grad graph),
// through what the engine runs (cuDNN's graph API, planned once) and the legacy
// cudnnConvolutionForward, on the same random f32 data, with the two outputs' relative difference;
// then the device time of the plan max-autotune picks by timing the heuristics' first 8:
//   bench_cudnn_conv [SAMPLE_DIR] [CALLS]   (default sample_graphs/resnet50, 20 calls a batch)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/conv_spec.h"
#include "fxscope/gpu/cudnn_conv_check.h"
#include "fxscope/trace/trace_log.h"

namespace {

double rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0;
  double norm = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    diff += d * d;
    norm += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  return std::sqrt(diff / std::max(norm, 1e-30));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fxscope;
  const std::string path = argc > 1 ? argv[1] : std::string(FXSCOPE_SAMPLES_DIR) + "/resnet50";
  const int calls = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  auto log = trace::read_trace(path);
  if (!log || log->units().empty()) {
    std::fprintf(stderr, "bench_cudnn_conv: %s\n",
                 log ? (path + ": no compile unit").c_str() : log.error().message.c_str());
    return 1;
  }
  const auto fused = fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode);
  if (fused.empty()) {
    std::fprintf(stderr, "bench_cudnn_conv: %s: no post-grad graph\n", path.c_str());
    return 1;
  }
  const graph::Graph& g = fused.front().post_grad;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  double host = 0, legacy_host = 0, device = 0, legacy_device = 0, tuned = 0, worst = 0;
  int count = 0;
  std::printf("%-76s %9s %9s %9s %9s %9s %9s  %s\n", "convolution", "host us", "legacy", "dev us",
              "legacy", "tuned", "rel diff", "engine");
  for (graph::NodeId id = 0; id < g.nodes().size(); ++id) {
    if (!gpu::is_conv_target(g.node(id).target)) continue;
    auto spec = gpu::describe_conv(g, id, {});
    if (!spec) {
      std::fprintf(stderr, "bench_cudnn_conv: %s\n", spec.error().message.c_str());
      return 1;
    }
    gpu::ConvData data;
    data.x.resize(gpu::strided_elements(spec->x_sizes, spec->x_strides));
    data.w.resize(gpu::strided_elements(spec->w_sizes, spec->w_strides));
    if (spec->bias) data.bias.resize(static_cast<std::size_t>(spec->out_sizes[1]));
    for (auto* v : {&data.x, &data.w, &data.bias}) {
      for (float& f : *v) f = u(rng);
    }
    const auto r = gpu::check_cudnn_conv(*spec, data, calls);
    if (!r) {
      std::fprintf(stderr, "bench_cudnn_conv: %s\n", r.error().message.c_str());
      return 1;
    }
    const auto t = gpu::check_cudnn_conv(*spec, data, calls, true);
    if (!t) {
      std::fprintf(stderr, "bench_cudnn_conv: %s\n", t.error().message.c_str());
      return 1;
    }
    const double diff = std::max(rel_diff(r->out, r->legacy_out), rel_diff(t->out, r->legacy_out));
    std::printf("%-76s %9.2f %9.2f %9.2f %9.2f %9.2f %9.1e  %s%s%s\n",
                gpu::conv_shape_text(*spec).c_str(), r->host_us, r->legacy_host_us, r->device_us,
                r->legacy_device_us, t->device_us, diff, r->engine.c_str(),
                t->tuned.empty() ? "" : "; tuned: ", t->tuned.c_str());
    host += r->host_us;
    legacy_host += r->legacy_host_us;
    device += r->device_us;
    legacy_device += r->legacy_device_us;
    tuned += t->device_us;
    worst = std::max(worst, diff);
    ++count;
  }
  std::printf(
      "%d convolutions, per call summed: host %.1f us (legacy %.1f us), device %.1f us "
      "(legacy %.1f us), largest relative difference %.1e\n",
      count, host, legacy_host, device, legacy_device, worst);
  return 0;
}
