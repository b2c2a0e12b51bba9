// Convolutions as one GEMM (engine/gpu/gemm_conv): the plan's operands checked by doing on the
// host what the device does (im2col_host, then the GEMM through each operand's strides) against
// the definition, in NCHW, channels-last and mixed layouts; what is refused; ResNet-50's 53
// convolutions planned and their im2col kernels compiled by NVRTC (no GPU needed); and the
// device's result against the definition ([cuda]).

#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "conv_test_data.h"
#include "fxscope/gpu/gemm_conv.h"
#include "fxscope/gpu/nvrtc_compiler.h"
#include "sample_graph.h"

using namespace fxscope;

namespace {

using Sizes = std::vector<std::int64_t>;

// Strides of SIZES laid out in ORDER (dims from slowest to fastest).
Sizes strides_in(const Sizes& sizes, const std::vector<int>& order) {
  Sizes st(sizes.size());
  std::int64_t step = 1;
  for (std::size_t j = order.size(); j-- > 0;) {
    st[static_cast<std::size_t>(order[j])] = step;
    step *= sizes[static_cast<std::size_t>(order[j])];
  }
  return st;
}

const std::vector<int> kNchw = {0, 1, 2, 3};
const std::vector<int> kNhwc = {0, 2, 3, 1};

struct Conv {
  Sizes x;  // N, C, H, W
  std::int64_t out_channels;
  int kh, kw, stride, pad, dilation;
  std::vector<int> x_order = kNchw, w_order = kNchw, out_order = kNchw;
  bool bias = false;
};

gpu::ConvSpec spec_of(const Conv& c) {
  gpu::ConvSpec s;
  s.dtype = "f32";
  s.x_sizes = c.x;
  s.w_sizes = {c.out_channels, c.x[1], c.kh, c.kw};
  const auto out = [&](std::int64_t in, int k) {
    return (in + 2 * c.pad - c.dilation * (k - 1) - 1) / c.stride + 1;
  };
  s.out_sizes = {c.x[0], c.out_channels, out(c.x[2], c.kh), out(c.x[3], c.kw)};
  s.stride = {c.stride, c.stride};
  s.padding = {c.pad, c.pad};
  s.dilation = {c.dilation, c.dilation};
  s.x_strides = strides_in(s.x_sizes, c.x_order);
  s.w_strides = strides_in(s.w_sizes, c.w_order);
  s.out_strides = strides_in(s.out_sizes, c.out_order);
  if (c.bias) s.bias = 3;
  return s;
}

std::size_t at(const Sizes& st, std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
  return static_cast<std::size_t>(a * st[0] + b * st[1] + c * st[2] + d * st[3]);
}

// The definition, through every tensor's strides, into the output's storage.
std::vector<double> strided_reference(const gpu::ConvSpec& s, const gpu::ConvData& d) {
  std::vector<double> out(gpu::strided_elements(s.out_sizes, s.out_strides));
  for (std::int64_t n = 0; n < s.out_sizes[0]; ++n)
    for (std::int64_t co = 0; co < s.out_sizes[1]; ++co)
      for (std::int64_t oh = 0; oh < s.out_sizes[2]; ++oh)
        for (std::int64_t ow = 0; ow < s.out_sizes[3]; ++ow) {
          double acc = s.bias ? d.bias[static_cast<std::size_t>(co)] : 0.0;
          for (std::int64_t ci = 0; ci < s.x_sizes[1]; ++ci)
            for (std::int64_t r = 0; r < s.w_sizes[2]; ++r)
              for (std::int64_t t = 0; t < s.w_sizes[3]; ++t) {
                const std::int64_t ih = oh * s.stride[0] - s.padding[0] + r * s.dilation[0];
                const std::int64_t iw = ow * s.stride[1] - s.padding[1] + t * s.dilation[1];
                if (ih < 0 || ih >= s.x_sizes[2] || iw < 0 || iw >= s.x_sizes[3]) continue;
                acc += static_cast<double>(d.x[at(s.x_strides, n, ci, ih, iw)]) *
                       d.w[at(s.w_strides, co, ci, r, t)];
              }
          out[at(s.out_strides, n, co, oh, ow)] = acc;
        }
  return out;
}

// What the device does, on the host: im2col, then the GEMM reading each operand's buffer through
// its strides (batch, row, column), the bias over the output's columns.
std::vector<double> as_gemm(const gpu::GemmConvPlan& p, const gpu::ConvData& d) {
  const std::vector<float> col = gpu::im2col_host(p, d.x);
  const auto buffer = [&](gpu::GemmConvOperand o) -> const std::vector<float>& {
    return o == gpu::GemmConvOperand::input ? d.x : o == gpu::GemmConvOperand::col ? col : d.w;
  };
  const auto& A = buffer(p.a_reads);
  const auto& B = buffer(p.b_reads);
  const auto& g = p.gemm;
  std::vector<double> out(gpu::strided_elements(p.conv.out_sizes, p.conv.out_strides));
  for (std::int64_t b = 0; b < g.out.batch; ++b)
    for (std::int64_t i = 0; i < g.out.rows; ++i)
      for (std::int64_t j = 0; j < g.out.cols; ++j) {
        double acc = g.bias_vector ? d.bias[static_cast<std::size_t>(j)] : 0.0;
        for (std::int64_t k = 0; k < g.a.cols; ++k) {
          acc += static_cast<double>(A[static_cast<std::size_t>(
                     b * g.a.batch_stride + i * g.a.row_stride + k * g.a.col_stride)]) *
                 B[static_cast<std::size_t>(b * g.b.batch_stride + k * g.b.row_stride +
                                            j * g.b.col_stride)];
        }
        out[static_cast<std::size_t>(b * g.out.batch_stride + i * g.out.row_stride +
                                     j * g.out.col_stride)] = acc;
      }
  return out;
}

struct Case {
  const char* what;
  Conv conv;
  bool direct;
  bool channels_major;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"NCHW 3x3 padded, batch 2", {{2, 5, 9, 9}, 6, 3, 3, 1, 1, 1}, false, true},
      {"NCHW stem-like 7x7 stride 2", {{1, 3, 21, 21}, 8, 7, 7, 2, 3, 1}, false, true},
      {"NCHW 1x1 (direct)", {{2, 8, 6, 5}, 4, 1, 1, 1, 0, 1}, true, true},
      {"NCHW 1x1 stride 2", {{1, 8, 7, 7}, 4, 1, 1, 2, 0, 1}, false, true},
      {"NCHW dilated 3x3", {{1, 4, 11, 11}, 3, 3, 3, 1, 2, 2}, false, true},
      {"NCHW 1x3 (a 1-d kernel)", {{1, 4, 1, 16}, 5, 1, 3, 1, 1, 1}, false, true},
      {"NHWC, contiguous weight, bias",
       {{2, 6, 8, 8}, 5, 3, 3, 1, 1, 1, kNhwc, kNchw, kNhwc, true},
       false,
       false},
      {"NHWC 1x1, channels-last weight, bias (direct)",
       {{2, 6, 5, 4}, 7, 1, 1, 1, 0, 1, kNhwc, kNhwc, kNhwc, true},
       true,
       false},
      {"NHWC 3x3, channels-last weight",
       {{1, 4, 7, 7}, 6, 3, 3, 2, 1, 1, kNhwc, kNhwc, kNhwc},
       false,
       false},
      {"NCHW in, NHWC out, bias",
       {{1, 5, 6, 6}, 4, 3, 3, 1, 1, 1, kNchw, kNchw, kNhwc, true},
       false,
       false},
  };
  return all;
}

}  // namespace

TEST_CASE("a convolution planned as one GEMM computes the convolution", "[gpu]") {
  unsigned seed = 7;
  for (const Case& c : cases()) {
    INFO(c.what);
    const gpu::ConvSpec spec = spec_of(c.conv);
    const auto plan = gpu::plan_gemm_conv(spec);
    REQUIRE(plan);
    CHECK(plan->direct == c.direct);
    CHECK(plan->channels_major == c.channels_major);
    CHECK(plan->col_elements == (c.direct ? 0 : plan->images * plan->taps * plan->positions));
    const auto data = test::random_conv_data(spec, seed++);
    CHECK(test::rel_err(as_gemm(*plan, data), strided_reference(spec, data)) < 1e-6);
  }
}

TEST_CASE("convolutions one GEMM cannot compute are refused with the reason", "[gpu]") {
  Conv grouped{{1, 4, 6, 6}, 4, 3, 3, 1, 1, 1};
  gpu::ConvSpec g = spec_of(grouped);
  g.groups = 2;
  g.w_sizes[1] = 2;
  g.w_strides = strides_in(g.w_sizes, kNchw);
  auto r = gpu::plan_gemm_conv(g);
  REQUIRE(!r);
  CHECK(r.error().message.find("grouped") != std::string::npos);
  CHECK(r.error().message.find("f32 x 1x4x6x6") == 0);

  Conv biased{{1, 4, 6, 6}, 4, 3, 3, 1, 1, 1};
  biased.bias = true;
  r = gpu::plan_gemm_conv(spec_of(biased));
  REQUIRE(!r);
  CHECK(r.error().message.find("a bias along a channels-major output") != std::string::npos);

  gpu::ConvSpec gaps = spec_of(Conv{{1, 4, 6, 6}, 4, 3, 3, 1, 1, 1});
  gaps.w_strides = {72, 18, 6, 2};  // every other element: a strided view of a weight
  r = gpu::plan_gemm_conv(gaps);
  REQUIRE(!r);
  CHECK(r.error().message.find("taps are not dense") != std::string::npos);
}

TEST_CASE("ResNet-50's convolutions are all one GEMM each, and their im2col kernels compile",
          "[gpu]") {
  const auto f = test::sample_fusion("resnet50", fusion::Mode::max_autotune);
  std::map<std::string, int> sources;
  int convs = 0, direct = 0;
  for (graph::NodeId id = 0; id < f.post_grad.nodes().size(); ++id) {
    if (!gpu::is_conv_target(f.post_grad.node(id).target)) continue;
    auto spec = gpu::describe_conv(f.post_grad, id, {});
    REQUIRE(spec);
    INFO(gpu::conv_shape_text(*spec));
    const auto plan = gpu::plan_gemm_conv(*spec);
    REQUIRE(plan);
    ++convs;
    CHECK(plan->channels_major);  // the samples' tensors are NCHW
    if (plan->direct) {
      ++direct;
    } else {
      ++sources[gpu::im2col_source(*plan)];
    }
    if (gpu::conv_shape_text(*spec) ==
        "f32 x 1x512x7x7 w 512x512x3x3 -> 1x512x7x7 stride 1,1 pad 1,1 dilation 1,1 groups 1") {
      // Layer 4's 3x3: out[512, 49] = W[512, 4608] x col[4608, 49].
      CHECK(plan->gemm.a.rows == 512);
      CHECK(plan->gemm.a.cols == 4608);
      CHECK(plan->gemm.b.cols == 49);
      CHECK(plan->col_elements == 4608 * 49);
    }
  }
  CHECK(convs == 53);
  // The 1x1 stride-1 convolutions need no im2col: two a bottleneck (16) and layer 1's downsample.
  CHECK(direct == 33);
  gpu::NvrtcOptions o;
  o.use_cache = false;
  for (const auto& [source, uses] : sources) {
    const auto built = gpu::compile_cuda(source, "fxscope_im2col", o);
    INFO(source);
    CHECK(built);
  }
  CHECK(sources.size() >= 4);
}

TEST_CASE("convolutions as GEMMs on the device match the definition", "[cuda]") {
  unsigned seed = 21;
  for (const Case& c : cases()) {
    INFO(c.what);
    const gpu::ConvSpec spec = spec_of(c.conv);
    const auto data = test::random_conv_data(spec, seed++);
    const auto got = gpu::run_gemm_conv(spec, data);
    if (!got && got.error().message.find("no CUDA device") != std::string::npos) {
      WARN("skipped, no device: " + got.error().message);
      return;
    }
    REQUIRE(got);
    CHECK(test::rel_err(*got, strided_reference(spec, data)) < 1e-5);
  }
}
