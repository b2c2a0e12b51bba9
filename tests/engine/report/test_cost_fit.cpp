// The fitted cost model against the engine's measured kernels (tests/data/cost_fit, an H100):
// the features fxscope computes for the fit from real logs, and the held-out check of the
// compiled-in calibration. No timing is measured here: predictions meet stored measurements.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "fxscope/cost/calibration.h"
#include "fxscope/report/cost_fit.h"
#include "fxscope/report/fuse_report.h"
#include "fxscope/trace/trace_log.h"
#include "samples.h"

using namespace fxscope;

namespace {

// The work of every group of LOG's unit 0/0 planned in MODE.
std::vector<cost::KernelWork> work_of(const std::string& log, fusion::Mode mode) {
  auto trace = trace::read_trace(test::sample("corpus/" + log));
  REQUIRE(trace);
  auto fuse = report::build_fuse_report(*trace, mode, "0/0", *cost::find_device("H100"),
                                        report::ModeCoverage::requested_mode_only);
  REQUIRE(fuse);
  std::vector<cost::KernelWork> out;
  for (const auto& g : fuse->units.front().graphs) {
    for (const auto& group : g.fusion.ours.groups) {
      out.push_back(report::kernel_work(group, g.fusion.post_grad, mode));
    }
  }
  return out;
}

// The split reductions' middle passes among LOG's unit 0/0 kernels planned in the default mode.
std::size_t middle_passes(const std::string& log) {
  auto trace = trace::read_trace(test::sample("corpus/" + log));
  REQUIRE(trace);
  auto fuse = report::build_fuse_report(*trace, fusion::Mode::default_mode, "0/0",
                                        *cost::find_device("H100"),
                                        report::ModeCoverage::requested_mode_only);
  REQUIRE(fuse);
  std::size_t n = 0;
  for (const auto& g : fuse->units.front().graphs) {
    for (const auto& group : g.fusion.ours.groups) n += group.note == fusion::kSplitMiddlePassNote;
  }
  return n;
}

// The kernel classes of LOG's unit 0/0 planned in MODE.
std::multiset<cost::KernelClass> classes_of(const std::string& log, fusion::Mode mode) {
  std::multiset<cost::KernelClass> out;
  for (const auto& w : work_of(log, mode)) out.insert(w.kernel_class);
  return out;
}

// The shape classes of LOG's groups of class KIND planned in MODE.
std::multiset<std::string> shapes_of(const std::string& log, fusion::Mode mode,
                                     cost::KernelClass kind) {
  std::multiset<std::string> out;
  for (const auto& w : work_of(log, mode)) {
    if (w.kernel_class == kind) out.insert(w.shape);
  }
  return out;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Tally {
  std::size_t graphs = 0;
  std::size_t median_ok = 0;
  std::size_t p90_ok = 0;
  std::size_t total_ok = 0;
  std::size_t all_ok = 0;  // all three
  double median_of_medians = 0;
  double median_of_p90s = 0;
};

Tally tally(const std::vector<report::FitCheck>& checks) {
  Tally t;
  std::vector<double> medians;
  std::vector<double> p90s;
  for (const auto& c : checks) {
    if (c.error.kernels == 0) continue;
    ++t.graphs;
    t.median_ok += c.error.median_factor <= 1.25;
    t.p90_ok += c.error.p90_factor <= 2.0;
    t.total_ok += std::abs(c.error.total_ratio() - 1.0) <= 0.15;
    t.all_ok += c.error.median_factor <= 1.25 && c.error.p90_factor <= 2.0 &&
                std::abs(c.error.total_ratio() - 1.0) <= 0.15;
    medians.push_back(c.error.median_factor);
    p90s.push_back(c.error.p90_factor);
  }
  if (t.graphs > 0) {
    t.median_of_medians = median_of(medians);
    t.median_of_p90s = median_of(p90s);
  }
  return t;
}

}  // namespace

TEST_CASE("convolutions split by grouping, channels-last copies by layout", "[cost][fit]") {
  // MobileNet's depthwise convolutions are grouped; its 1x1 convolutions are not.
  const auto mobilenet = classes_of("tv_mobilenet_v3_small_ro", fusion::Mode::default_mode);
  CHECK(mobilenet.count(cost::KernelClass::grouped_conv) > 0);
  CHECK(mobilenet.count(cost::KernelClass::conv) > 0);
  // A channels-last model's eager pointwise ops walk NHWC tensors through NCHW sizes.
  const auto cl = classes_of("tv_regnet_y_400mf_cl", fusion::Mode::eager);
  CHECK(cl.count(cost::KernelClass::transpose) > 0);
  CHECK(cl.count(cost::KernelClass::pointwise) > 0);
  // A transformer in fp32 has GEMMs and row reductions, no convolution and nothing transposed.
  const auto gpt2 = classes_of("hf_gpt2_max_autotune", fusion::Mode::default_mode);
  CHECK(gpt2.count(cost::KernelClass::gemm) > 0);
  CHECK(gpt2.count(cost::KernelClass::persistent_reduction) > 0);
  CHECK(gpt2.count(cost::KernelClass::conv) == 0);
}

TEST_CASE("convolutions and attention carry the shape class their library picks by",
          "[cost][fit]") {
  // ResNet-18's stem: a 7x7, stride-2 convolution of the 3-channel image; its backward computes
  // the weight's gradient alone (the image needs none). The body's 3x3 and 1x1 convolutions.
  const auto resnet =
      shapes_of("tv_resnet18_train_bf16", fusion::Mode::default_mode, cost::KernelClass::conv);
  CHECK(resnet.count("fwd/nchw/kxk/s2/cin<=4") == 1);
  CHECK(resnet.count("bwd_w/cl/kxk/s2/cin<=4") == 1);
  CHECK(resnet.count("fwd/nchw/3x3/s1/c>=64") > 4);
  CHECK(resnet.count("fwd/nchw/1x1/s2/c>=64") > 0);
  for (const auto& s : resnet) CHECK((s.starts_with("fwd/") || s.starts_with("bwd")));
  // Under max-autotune the engine times a forward convolution's candidate kernels and keeps the
  // fastest; the backward keeps cuDNN's heuristic.
  std::size_t tuned = 0;
  for (const auto& s :
       shapes_of("tv_resnet18_train_bf16", fusion::Mode::max_autotune, cost::KernelClass::conv)) {
    CHECK(s.ends_with("/tuned") == s.starts_with("fwd/"));
    tuned += s.ends_with("/tuned");
  }
  CHECK(tuned > 4);
  // A video model's convolutions are 3-d.
  const auto video =
      shapes_of("tv_r3d_18_video", fusion::Mode::default_mode, cost::KernelClass::conv);
  CHECK(video.count("fwd/nchw/3x3x3/s1/c>=64") > 0);
  // MobileNet's depthwise convolutions.
  const auto mobilenet = shapes_of("tv_mobilenet_v3_small_ro", fusion::Mode::default_mode,
                                   cost::KernelClass::grouped_conv);
  REQUIRE_FALSE(mobilenet.empty());
  for (const auto& s : mobilenet) CHECK(s.ends_with("/dw"));
  // Under a dynamic batch and image size too: the class reads the input's rank, channels and
  // layout alone (AlexNet's 11x11 stem over the 3-channel image, MobileNet's depthwise kernels).
  const auto dynamic = shapes_of("tv_mobilenet_v3_large_dynamic_bf16", fusion::Mode::default_mode,
                                 cost::KernelClass::grouped_conv);
  REQUIRE_FALSE(dynamic.empty());
  for (const auto& s : dynamic) CHECK(s.ends_with("/dw"));
  CHECK(shapes_of("tv_alexnet_dynamic", fusion::Mode::default_mode, cost::KernelClass::conv)
            .count("fwd/nchw/kxk/s2/cin<=4") == 1);
  // A decoder's attention under its additive mask, forward and backward, 64-wide heads.
  const auto llama =
      shapes_of("hf_llama_train_bf16", fusion::Mode::default_mode, cost::KernelClass::attention);
  CHECK(llama.count("fwd/bias/d<=64/l<=256") > 0);
  CHECK(llama.count("bwd/bias/d<=64/l<=256") > 0);
  // An eager call's attention runs on the model's own tensors: a bucket of its own.
  const auto llama_eager =
      shapes_of("hf_llama_train_bf16", fusion::Mode::eager, cost::KernelClass::attention);
  CHECK(llama_eager.count("fwd/eager/bias/d<=64/l<=256") > 0);
  // A reduction by its width and rows: the test GPT-2's layer norms reduce 256 rows 256 wide.
  const auto gpt2 = work_of("hf_gpt2_max_autotune", fusion::Mode::default_mode);
  std::multiset<std::string> reductions;
  for (const auto& w : gpt2) {
    if (w.kernel_class == cost::KernelClass::persistent_reduction) reductions.insert(w.shape);
  }
  CHECK(reductions.count("r<=1024/rows<1k/inner") >= 3);
  for (const auto& s : reductions) CHECK(s.ends_with("/inner"));
  // A batch norm's statistics reduce N, H and W per channel: the reduced axis lies across memory.
  // ResNet-18's training step splits them (few rows, long ones) into first passes over 128-wide
  // parts of the strided axis; its backward's weight gradients' sums likewise.
  const auto resnet_reductions = shapes_of("tv_resnet18_train_bf16", fusion::Mode::default_mode,
                                           cost::KernelClass::persistent_reduction);
  CHECK(resnet_reductions.count("r<=128/rows<64k/outer") >= 10);
  CHECK(resnet_reductions.count("r<=128/rows<64k/inner") == 0);
  // Those of 4,096 rows or more reduce dims that are not the innermost of [N, C, H, W]: the
  // engine's kernel runs one thread a row, unless max-autotune times another launch.
  CHECK(resnet_reductions.count("r<=128/rows<64k/outer/thread") >= 10);
  const auto tuned_reductions = shapes_of("tv_resnet18_train_bf16", fusion::Mode::max_autotune,
                                          cost::KernelClass::persistent_reduction);
  CHECK(tuned_reductions.count("r<=128/rows<64k/outer") >= 30);
  for (const auto& s : tuned_reductions) CHECK_FALSE(s.ends_with("/thread"));
  // A global average pool over the innermost H and W takes a team a row however many rows.
  std::size_t pools = 0;
  for (const auto& w : work_of("tv_mobilenet_v3_small_ro", fusion::Mode::default_mode)) {
    if (w.rows >= 4096 && w.name.find("mean") != std::string::npos) {
      ++pools;
      CHECK_FALSE(w.shape.ends_with("/thread"));
    }
  }
  CHECK(pools > 0);
  // A GEMM by its kernel: cuBLAS's by default, max-autotune's generated templates.
  CHECK(shapes_of("hf_gpt2_max_autotune", fusion::Mode::default_mode, cost::KernelClass::gemm)
            .count("library") > 0);
  const auto autotuned =
      shapes_of("hf_gpt2_max_autotune", fusion::Mode::max_autotune, cost::KernelClass::gemm);
  CHECK(autotuned.count("template") > 0);
  // A template is the generated kernel that does its GEMM: it counts the GEMM's FLOPs, not only
  // its epilogue's (GPT-2's 256 x 256 x 768 projections: 2 x 256 x 256 x 768 each at least).
  for (const auto& w : work_of("hf_gpt2_max_autotune", fusion::Mode::max_autotune)) {
    if (w.shape == "template") CHECK(w.flops >= 2.0 * 256 * 256 * 64);
  }
  // Other classes have none.
  for (const auto& w : gpt2) {
    if (w.kernel_class != cost::KernelClass::attention &&
        w.kernel_class != cost::KernelClass::persistent_reduction &&
        w.kernel_class != cost::KernelClass::reduction &&
        w.kernel_class != cost::KernelClass::gemm) {
      CHECK(w.shape.empty());
    }
  }
}

TEST_CASE("the fit data reads back, every kernel with a class", "[cost][fit]") {
  auto data = report::read_fit_data(test::data("cost_fit/h100"));
  REQUIRE(data);
  CHECK(data->kernels.size() > 30000);
  CHECK(data->graphs.size() > 200);
  std::size_t measured = 0;
  std::set<cost::KernelClass> classes;
  for (const auto& k : data->kernels) {
    measured += k.measured_us.has_value();
    classes.insert(k.work.kernel_class);
  }
  // The engine runs fxscope's own plan: nearly every planned group has its kernels.
  CHECK(measured > data->kernels.size() * 9 / 10);
  for (const auto c : {cost::KernelClass::pointwise, cost::KernelClass::gemm,
                       cost::KernelClass::conv, cost::KernelClass::persistent_reduction}) {
    CHECK(classes.contains(c));
  }
  for (const auto& g : data->graphs) CHECK(g.device.find("H100") != std::string::npos);
}

TEST_CASE("the fit data's shape classes are the ones the plan gives", "[cost][fit]") {
  // extract_kernels.py --augment fills the column from `fuse --json`: the same rule the engine
  // prices by, so a kernel is fitted in the bucket it is later looked up in.
  auto data = report::read_fit_data(test::data("cost_fit/h100"));
  REQUIRE(data);
  for (const char* log : {"tv_resnet18_train_bf16", "tv_mobilenet_v3_small_ro"}) {
    INFO(log);
    std::multiset<std::string> stored;
    for (const auto& k : data->kernels) {
      if (k.log == log && k.mode == "default" && !k.work.shape.empty()) {
        stored.insert(k.work.shape);
      }
    }
    std::multiset<std::string> planned;
    for (const auto& w : work_of(log, fusion::Mode::default_mode)) {
      if (!w.shape.empty()) planned.insert(w.shape);
    }
    CHECK_FALSE(stored.empty());
    // Today's plan may launch kernels the measured one did not: a Welford reduction's combine
    // split again adds a middle pass and shortens the final one, whose measured class then has
    // no planned kernel. Every other measured kernel's class is still one the plan gives.
    std::vector<std::string> missing;
    std::set_difference(stored.begin(), stored.end(), planned.begin(), planned.end(),
                        std::back_inserter(missing));
    INFO("measured classes today's plan lacks: " << missing.size());
    CHECK(missing.size() <= middle_passes(log));
  }
}

TEST_CASE("missing fit data is an error naming the file", "[cost][fit]") {
  auto data = report::read_fit_data(test::data("cost_fit/no_such_device"));
  REQUIRE_FALSE(data);
  CHECK_THAT(data.error().message, Catch::Contains("no_such_device_kernels.csv.gz"));
}

TEST_CASE("on held-out logs the calibration beats the datasheet roofline", "[cost][fit]") {
  auto data = report::read_fit_data(test::data("cost_fit/h100"));
  REQUIRE(data);
  const std::set<std::string> training = report::training_logs(*data);
  REQUIRE_FALSE(training.empty());
  auto device = *cost::find_device("H100");
  const Tally fitted = tally(report::check_fit(*data, device, training));
  device.calibrated = false;
  const Tally fixed = tally(report::check_fit(*data, device, training));
  REQUIRE(fitted.graphs > 100);
  // The bounds the held-out graphs meet (bench_cost_fit prints each graph; 127 graph-modes):
  // the per-kernel median within 1.25x on 101, the p90 within 2x on 115, the total within 15% on
  // 103, all three on 83; the typical graph's median 1.15x and p90 1.46x. A ratchet: a change to
  // the model or its fit may not meet any target, or all three, on fewer graphs.
  CHECK(fitted.median_of_medians <= 1.16);
  CHECK(fitted.median_of_p90s <= 1.47);
  CHECK(fitted.median_ok >= 101);
  CHECK(fitted.p90_ok >= 115);
  CHECK(fitted.total_ok >= 103);
  CHECK(fitted.all_ok >= 83);
  CHECK(fitted.median_ok > fixed.median_ok);
  CHECK(fitted.p90_ok > fixed.p90_ok);
  CHECK(fitted.total_ok > fixed.total_ok);
}
