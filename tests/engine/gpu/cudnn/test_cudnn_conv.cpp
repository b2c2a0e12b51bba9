// Convolutions on cuDNN's graph API (engine/gpu/cudnn_graph_conv): specs read from the ResNet
// samples, small convolutions against a plain CPU reference, and every ResNet-18 convolution
// against the legacy API, with the host time per call of each. The [cuda] cases pass with a
// warning where there is no GPU.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "conv_test_data.h"
#include "fxscope/gpu/conv_spec.h"
#include "fxscope/gpu/cudnn_conv_check.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& sizes) {
  std::vector<std::int64_t> strides(sizes.size(), 1);
  for (std::size_t d = sizes.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * sizes[d + 1];
  return strides;
}

// A contiguous f32 convolution of input X_SIZES, OUT_CHANNELS filters of KERNEL taps per spatial
// dim; the output size follows from stride, padding and dilation.
gpu::ConvSpec make_spec(const std::vector<std::int64_t>& x_sizes, std::int64_t out_channels,
                        int kernel, int stride, int pad, int dilation, int groups, bool bias) {
  gpu::ConvSpec s;
  s.dtype = "f32";
  s.x_sizes = x_sizes;
  s.w_sizes = {out_channels, x_sizes[1] / groups};
  s.out_sizes = {x_sizes[0], out_channels};
  for (std::size_t d = 2; d < x_sizes.size(); ++d) {
    s.w_sizes.push_back(kernel);
    s.out_sizes.push_back((x_sizes[d] + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1);
    s.stride.push_back(stride);
    s.padding.push_back(pad);
    s.dilation.push_back(dilation);
  }
  s.x_strides = contiguous_strides(s.x_sizes);
  s.w_strides = contiguous_strides(s.w_sizes);
  s.out_strides = contiguous_strides(s.out_sizes);
  s.groups = groups;
  if (bias) s.bias = 3;
  return s;
}

// The convolution by its definition, in double, for contiguous 1-d and 2-d specs.
std::vector<double> contiguous_reference(const gpu::ConvSpec& s, const gpu::ConvData& d) {
  const bool two_d = s.x_sizes.size() == 4;
  const std::int64_t N = s.x_sizes[0], C = s.x_sizes[1], K = s.out_sizes[1];
  const std::int64_t H = two_d ? s.x_sizes[2] : 1, W = s.x_sizes.back();
  const std::int64_t R = two_d ? s.w_sizes[2] : 1, S = s.w_sizes.back();
  const std::int64_t P = two_d ? s.out_sizes[2] : 1, Q = s.out_sizes.back();
  const int sh = two_d ? s.stride[0] : 1, sw = s.stride.back();
  const int ph = two_d ? s.padding[0] : 0, pw = s.padding.back();
  const int dh = two_d ? s.dilation[0] : 1, dw = s.dilation.back();
  const std::int64_t cg = C / s.groups, kg = K / s.groups;
  std::vector<double> out(static_cast<std::size_t>(N * K * P * Q));
  for (std::int64_t n = 0; n < N; ++n) {
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int64_t g = k / kg;
      for (std::int64_t p = 0; p < P; ++p) {
        for (std::int64_t q = 0; q < Q; ++q) {
          double acc = s.bias ? d.bias[static_cast<std::size_t>(k)] : 0.0;
          for (std::int64_t c = 0; c < cg; ++c) {
            for (std::int64_t r = 0; r < R; ++r) {
              const std::int64_t h = p * sh - ph + r * dh;
              if (h < 0 || h >= H) continue;
              for (std::int64_t t = 0; t < S; ++t) {
                const std::int64_t w = q * sw - pw + t * dw;
                if (w < 0 || w >= W) continue;
                const auto xi = static_cast<std::size_t>(((n * C + g * cg + c) * H + h) * W + w);
                const auto wi = static_cast<std::size_t>(((k * cg + c) * R + r) * S + t);
                acc += static_cast<double>(d.x[xi]) * static_cast<double>(d.w[wi]);
              }
            }
          }
          out[static_cast<std::size_t>(((n * K + k) * P + p) * Q + q)] = acc;
        }
      }
    }
  }
  return out;
}

std::vector<double> widened(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

bool no_device(const Error& e) {
  return e.message.find("no CUDA device") != std::string::npos;
}

std::vector<gpu::ConvSpec> sample_convs(const std::string& sample) {
  const auto f = test::sample_fusion(sample, fusion::Mode::default_mode);
  std::vector<gpu::ConvSpec> out;
  for (graph::NodeId id = 0; id < f.post_grad.nodes().size(); ++id) {
    if (!gpu::is_conv_target(f.post_grad.node(id).target)) continue;
    auto spec = gpu::describe_conv(f.post_grad, id, {});
    REQUIRE(spec);
    out.push_back(std::move(*spec));
  }
  return out;
}

}  // namespace

TEST_CASE("ResNet-50's convolutions are described with aligned, contiguous tensors", "[gpu]") {
  const auto convs = sample_convs("resnet50");
  CHECK(convs.size() == 53);
  for (const auto& s : convs) {
    INFO(gpu::conv_shape_text(s));
    CHECK(s.dtype == "f32");
    CHECK(s.x_sizes.size() == 4);
    CHECK(!s.bias);  // torchvision's convolutions have none
    // Every operand is a buffer of its own (no view into another), so cuDNN may assume 16 bytes.
    CHECK(s.x_align == 16);
    CHECK(s.w_align == 16);
    CHECK(s.out_align == 16);
  }
  CHECK(gpu::conv_shape_text(convs.front()) ==
        "f32 x 1x3x224x224 w 64x3x7x7 -> 1x64x112x112 stride 2,2 pad 3,3 dilation 1,1 groups 1");
}

TEST_CASE("a channels-last model's convolutions keep their channels-last weights", "[gpu]") {
  const auto convs = sample_convs("corpus/tv_regnet_y_400mf_cl");
  REQUIRE(convs.size() > 20);
  std::size_t channels_last = 0;
  for (const auto& s : convs) {
    INFO(gpu::conv_shape_text(s));
    const auto layout = gpu::weight_layout(s);
    CHECK(layout != gpu::WeightLayout::other);
    // A 1x1 or depthwise weight lies the same in both layouts and reads as contiguous.
    if (layout == gpu::WeightLayout::channels_last) ++channels_last;
    CHECK(s.w_strides[1] == 1);
  }
  CHECK(channels_last > 10);
}

TEST_CASE("a 1-d convolution is planned as a 2-d one of height 1", "[gpu]") {
  const auto s = make_spec({2, 4, 10}, 6, 3, 2, 1, 1, 1, true);
  const auto t = gpu::with_two_spatial_dims(s);
  CHECK(t.x_sizes == std::vector<std::int64_t>{2, 4, 1, 10});
  CHECK(t.x_strides == std::vector<std::int64_t>{40, 10, 10, 1});
  CHECK(t.w_sizes == std::vector<std::int64_t>{6, 4, 1, 3});
  CHECK(t.out_sizes == std::vector<std::int64_t>{2, 6, 1, 5});
  CHECK(t.stride == std::vector<int>{1, 2});
  CHECK(t.padding == std::vector<int>{0, 1});
  CHECK(t.dilation == std::vector<int>{1, 1});
  const auto u = gpu::with_two_spatial_dims(t);
  CHECK(u.x_sizes == t.x_sizes);  // 2-d stays as it is
}

TEST_CASE("the graph API's convolutions match the definition", "[cuda][cudnn]") {
  struct Case {
    const char* what;
    gpu::ConvSpec spec;
  };
  const std::vector<Case> cases = {
      {"3x3, padded", make_spec({2, 8, 12, 12}, 16, 3, 1, 1, 1, 1, false)},
      {"strided, with bias", make_spec({1, 3, 17, 17}, 8, 5, 2, 2, 1, 1, true)},
      {"dilated", make_spec({1, 4, 15, 15}, 4, 3, 1, 2, 2, 1, false)},
      {"grouped, with bias", make_spec({2, 8, 9, 9}, 12, 3, 1, 1, 1, 4, true)},
      {"depthwise", make_spec({1, 6, 8, 8}, 6, 3, 1, 1, 1, 6, false)},
      {"1-d, with bias", make_spec({2, 4, 33}, 6, 3, 2, 1, 1, 1, true)},
  };
  unsigned seed = 1;
  for (const auto& c : cases) {
    const auto data = test::random_conv_data(c.spec, seed++);
    const auto run = gpu::check_cudnn_conv(c.spec, data, 3);
    if (!run && no_device(run.error())) {
      WARN("skipped, no device: " + run.error().message);
      return;
    }
    INFO(c.what << ": " << gpu::conv_shape_text(c.spec));
    REQUIRE(run);
    INFO(run->engine);
    CHECK(run->engine.rfind("graph engine", 0) == 0);
    const auto want = contiguous_reference(c.spec, data);
    CHECK(test::rel_err(run->out, want) < 1e-5);  // fp32 without TF32
    CHECK(test::rel_err(run->legacy_out, want) < 1e-5);
  }
}

TEST_CASE(
    "ResNet-18's convolutions: the graph API agrees with the legacy one at a fraction of "
    "its host time",
    "[cuda][cudnn]") {
  double host = 0;
  double legacy_host = 0;
  unsigned seed = 100;
  for (const auto& s : sample_convs("resnet18")) {
    const auto run = gpu::check_cudnn_conv(s, test::random_conv_data(s, seed++), 20);
    if (!run && no_device(run.error())) {
      WARN("skipped, no device: " + run.error().message);
      return;
    }
    INFO(gpu::conv_shape_text(s));
    REQUIRE(run);
    INFO(run->engine);
    CHECK(run->engine.rfind("graph engine", 0) == 0);
    CHECK(test::rel_err(run->out, widened(run->legacy_out)) < 1e-5);
    host += run->host_us;
    legacy_host += run->legacy_host_us;
  }
  WARN("host time per call, sum over ResNet-18's convolutions: graph API " << host << " us, legacy "
                                                                           << legacy_host << " us");
  CHECK(host < legacy_host / 2);
}

TEST_CASE("max-autotune's timed pick among cuDNN's plans stays plain fp32", "[cuda][cudnn]") {
  int tuned = 0;
  unsigned seed = 200;
  for (const auto& s : sample_convs("resnet18")) {
    const auto run = gpu::check_cudnn_conv(s, test::random_conv_data(s, seed++), 3, true);
    if (!run && no_device(run.error())) {
      WARN("skipped, no device: " + run.error().message);
      return;
    }
    INFO(gpu::conv_shape_text(s));
    REQUIRE(run);
    INFO(run->tuned);
    // A TF32 engine would miss by about 1e-3.
    CHECK(test::rel_err(run->out, widened(run->legacy_out)) < 1e-5);
    if (!run->tuned.empty()) ++tuned;
  }
  CHECK(tuned > 0);
}
