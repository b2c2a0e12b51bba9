// cuDNN's operands dense in one format (fxscope/gpu/dense_copy.h): the layout rules, the copy
// kernel compiled with NVRTC for sm_90 (no GPU needed), and the operands of the corpus's
// convolutions that are not dense as the graph lays them out (the copies a run makes before each
// call).

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

#include "corpus_log.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/conv_spec.h"
#include "fxscope/gpu/dense_copy.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/trace/trace_log.h"
#include "nvrtc_usable.h"
#include "samples.h"

using namespace fxscope;

TEST_CASE("dense strides, contiguous and channels-last, and which layouts they match",
          "[gpu][dense_copy]") {
  const std::vector<std::int64_t> sizes{2, 64, 7, 5};
  CHECK(gpu::dense_strides(sizes, false) == std::vector<std::int64_t>{2240, 35, 5, 1});
  CHECK(gpu::dense_strides(sizes, true) == std::vector<std::int64_t>{2240, 1, 320, 64});
  CHECK(gpu::dense_strides({2, 8, 3, 4, 5}, true) == std::vector<std::int64_t>{480, 1, 160, 40, 8});
  CHECK(gpu::lies_channels_last(sizes, {2240, 1, 320, 64}));
  CHECK_FALSE(gpu::lies_channels_last(sizes, {2240, 35, 5, 1}));
  // A gradient expanded from a mean's (strides 0) is dense in neither format.
  const std::vector<std::int64_t> expanded{64, 1, 0, 0};
  CHECK_FALSE(gpu::same_layout(sizes, expanded, gpu::dense_strides(sizes, false)));
  CHECK_FALSE(gpu::same_layout(sizes, expanded, gpu::dense_strides(sizes, true)));
  // A dim of size 1 may have any stride.
  CHECK(gpu::same_layout({2, 64, 1, 1}, {64, 1, 7, 99}, gpu::dense_strides({2, 64, 1, 1}, false)));
  CHECK(gpu::dense_copy_entry(2) == "fxscope_dense_copy_2");
  CHECK(gpu::dense_copy_entry(3).empty());
}

TEST_CASE("the dense copy compiles for sm_90 for every element size", "[gpu][dense_copy][nvrtc]") {
  if (!test::nvrtc_unusable().empty()) {
    WARN("NVRTC is not usable here, nothing was compiled: " << test::nvrtc_unusable());
    return;
  }
  for (const std::size_t bytes : {1u, 2u, 4u, 8u}) {
    const auto cubin =
        gpu::compile_cuda(gpu::dense_copy_source(), gpu::dense_copy_entry(bytes), {});
    INFO(bytes << (cubin ? "" : ": " + cubin.error().message));
    CHECK(cubin);
  }
}

TEST_CASE("convolution operands the graph lays out otherwise than cuDNN takes them",
          "[gpu][dense_copy]") {
  // ResNet-18 bf16 training: the last block's backward starts from the pool's gradient, an
  // expand of the mean's (strides 0); cuDNN offers no bf16 algorithm for it until it is dense.
  const auto log = test::corpus_log("tv_resnet18_train_bf16");
  if (!log) return;
  std::size_t convs = 0;
  std::size_t not_dense = 0;
  for (const auto& f : fusion::fuse_unit(log->units().front(), fusion::Mode::default_mode)) {
    const auto s = gpu::plan_steps(f.post_grad, f.ours, f.hints, false);
    for (const gpu::StepPlan& step : s.steps) {
      if (!step.conv_backward) continue;
      const gpu::ConvSpec& c = step.conv_backward->conv;
      const bool cl = gpu::lies_channels_last(c.x_sizes, c.x_strides) ||
                      gpu::weight_layout(c) == gpu::WeightLayout::channels_last;
      ++convs;
      const bool dense =
          gpu::same_layout(c.out_sizes, c.out_strides, gpu::dense_strides(c.out_sizes, cl)) &&
          gpu::same_layout(c.x_sizes, c.x_strides, gpu::dense_strides(c.x_sizes, cl)) &&
          gpu::same_layout(c.w_sizes, c.w_strides, gpu::dense_strides(c.w_sizes, cl));
      if (!dense) ++not_dense;
    }
  }
  std::cout << not_dense << " of " << convs << " convolution backwards need a dense copy\n";
  CHECK(convs >= 20);
  CHECK(not_dense >= 1);
}
