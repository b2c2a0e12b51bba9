#include "fxscope/gpu/gemm_conv.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace fxscope::gpu {
namespace {

// The stride of positions (h, w) flattened h-major, when one stride steps through them all.
std::optional<std::int64_t> flat_stride(std::int64_t h, std::int64_t h_stride, std::int64_t w,
                                        std::int64_t w_stride) {
  if (w == 1) return h == 1 ? 1 : h_stride;
  if (h == 1 || h_stride == w * w_stride) return w_stride;
  return std::nullopt;
}

// The (n, k, p) of col element I and its source tap (cin, kh, kw): what the kernel computes and
// im2col_host mirrors.
struct Tap {
  std::int64_t n, cin, ih, iw;
};
Tap tap_of(const GemmConvPlan& plan, std::int64_t i) {
  const ConvSpec& c = plan.conv;
  const std::int64_t P = plan.positions, K = plan.taps;
  std::int64_t p = 0, k = 0;
  if (plan.channels_major) {
    p = i % P;
    k = (i / P) % K;
  } else {
    k = i % K;
    p = (i / K) % P;
  }
  const std::int64_t n = i / (P * K);
  std::array<std::int64_t, 3> d{};
  d[2] = k % plan.k_sizes[2];
  d[1] = (k / plan.k_sizes[2]) % plan.k_sizes[1];
  d[0] = k / (plan.k_sizes[2] * plan.k_sizes[1]);
  std::array<std::int64_t, 3> by_dim{};  // cin, kh, kw
  for (std::size_t j = 0; j < 3; ++j) by_dim[static_cast<std::size_t>(plan.k_dims[j])] = d[j];
  const std::int64_t ow_count = c.out_sizes[3];
  const std::int64_t oh = p / ow_count, ow = p % ow_count;
  return {n, by_dim[0], oh * c.stride[0] - c.padding[0] + by_dim[1] * c.dilation[0],
          ow * c.stride[1] - c.padding[1] + by_dim[2] * c.dilation[1]};
}

std::string s(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

Result<GemmConvPlan> plan_gemm_conv(const ConvSpec& spec) {
  const auto refuse = [&](const std::string& why) {
    return make_error(conv_shape_text(spec) + ": not one GEMM: " + why);
  };
  const ConvSpec c = with_two_spatial_dims(spec);
  if (c.x_sizes.size() != 4) return refuse("1-d and 2-d convolutions only");
  if (c.groups != 1) return refuse("grouped");
  if (c.dtype != "f32" && c.dtype != "f16" && c.dtype != "bf16") return refuse("dtype " + c.dtype);
  const std::int64_t N = c.x_sizes[0], Cin = c.x_sizes[1], H = c.x_sizes[2], W = c.x_sizes[3];
  const std::int64_t Cout = c.out_sizes[1], OH = c.out_sizes[2], OW = c.out_sizes[3];
  if (c.w_sizes[1] != Cin || c.w_sizes[0] != Cout) return refuse("weight does not match");

  GemmConvPlan plan;
  plan.conv = c;
  plan.images = N;
  plan.positions = OH * OW;
  plan.out_channels = Cout;
  const std::int64_t P = plan.positions;

  // The output: positions contiguous (channels-major) or channels contiguous (channels-minor).
  const auto out_p = flat_stride(OH, c.out_strides[2], OW, c.out_strides[3]);
  if (!out_p) return refuse("the output's positions have no single stride");
  if (*out_p == 1) {
    plan.channels_major = true;
  } else if (c.out_strides[1] == 1 || Cout == 1) {
    plan.channels_major = false;
  } else {
    return refuse("neither the output's positions nor its channels are contiguous");
  }
  if (plan.channels_major && c.bias) return refuse("a bias along a channels-major output");

  // The weight's taps (Cin, KH, KW) dense in some order with unit stride: K walks them as they
  // lie, slowest first; dims of size 1 go first (their index is always 0).
  std::vector<int> dims = {0, 1, 2};
  std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
    const auto sa = c.w_sizes[static_cast<std::size_t>(a) + 1];
    const auto sb = c.w_sizes[static_cast<std::size_t>(b) + 1];
    if ((sa == 1) != (sb == 1)) return sa == 1;
    return c.w_strides[static_cast<std::size_t>(a) + 1] >
           c.w_strides[static_cast<std::size_t>(b) + 1];
  });
  std::int64_t expect = 1;
  for (int j = 2; j >= 0; --j) {
    const auto d = static_cast<std::size_t>(dims[static_cast<std::size_t>(j)]) + 1;
    if (c.w_sizes[d] == 1) continue;
    if (c.w_strides[d] != expect) return refuse("the weight's taps are not dense");
    expect *= c.w_sizes[d];
  }
  plan.taps = expect;
  for (int j = 0; j < 3; ++j) {
    plan.k_dims[static_cast<std::size_t>(j)] = dims[static_cast<std::size_t>(j)];
    plan.k_sizes[static_cast<std::size_t>(j)] =
        c.w_sizes[static_cast<std::size_t>(dims[static_cast<std::size_t>(j)]) + 1];
  }
  const std::int64_t K = plan.taps;
  const std::int64_t w_rows = c.w_strides[0];

  // Direct: a 1x1, stride-1, unpadded convolution reads the input as its operand, when the input
  // is a matrix cuBLASLt takes (positions or channels contiguous).
  const auto in_p = flat_stride(H, c.x_strides[2], W, c.x_strides[3]);
  const bool one_by_one = c.w_sizes[2] == 1 && c.w_sizes[3] == 1 && c.stride[0] == 1 &&
                          c.stride[1] == 1 && c.padding[0] == 0 && c.padding[1] == 0;
  plan.direct = one_by_one && in_p && (*in_p == 1 || c.x_strides[1] == 1 || Cin == 1);
  plan.col_elements = plan.direct ? 0 : N * K * P;

  GemmSpec& g = plan.gemm;
  g.op = plan.direct ? "convolution as GEMM" : "convolution as im2col + GEMM";
  g.dtype = c.dtype;
  const MatrixOperand weight_rows{c.w, Cout, K, w_rows, 1, N, 0};  // W [Cout, K]
  const MatrixOperand weight_cols{c.w, K, Cout, 1, w_rows, N, 0};  // W^T [K, Cout]
  const MatrixOperand out_rows{c.out, Cout, P, c.out_strides[1], 1, N, c.out_strides[0]};
  const MatrixOperand out_cols{c.out, P, Cout, *out_p, c.out_strides[1], N, c.out_strides[0]};
  if (plan.channels_major) {
    g.a = weight_rows;
    plan.a_reads = GemmConvOperand::weight;
    g.b = plan.direct ? MatrixOperand{c.x, Cin, P, c.x_strides[1], *in_p, N, c.x_strides[0]}
                      : MatrixOperand{c.x, K, P, P, 1, N, K * P};
    plan.b_reads = plan.direct ? GemmConvOperand::input : GemmConvOperand::col;
    g.out = out_rows;
  } else {
    g.a = plan.direct ? MatrixOperand{c.x, P, Cin, *in_p, c.x_strides[1], N, c.x_strides[0]}
                      : MatrixOperand{c.x, P, K, K, 1, N, K * P};
    plan.a_reads = plan.direct ? GemmConvOperand::input : GemmConvOperand::col;
    g.b = weight_cols;
    plan.b_reads = GemmConvOperand::weight;
    g.out = out_cols;
    g.bias_vector = c.bias;
  }
  return plan;
}

std::string im2col_source(const GemmConvPlan& plan) {
  const ConvSpec& c = plan.conv;
  const std::int64_t total = plan.images * plan.taps * plan.positions;
  std::int64_t x_extent = 1;
  for (std::size_t d = 0; d < 4; ++d) x_extent += (c.x_sizes[d] - 1) * c.x_strides[d];
  const bool narrow = std::max(total, x_extent) < std::numeric_limits<int>::max() / 2;
  const std::string I = narrow ? "int" : "long long";
  const std::string word = c.dtype == "f32" ? "unsigned int" : "unsigned short";
  const std::string P = s(plan.positions), K = s(plan.taps);
  const char* names[3] = {"cin", "kh", "kw"};
  std::string src;
  src +=
      "// im2col of " + conv_shape_text(c) + ": " +
      (plan.channels_major ? "col[n][k][p] (positions fastest)" : "col[n][p][k] (taps fastest)") +
      ", elements copied as words of their width.\n";
  src += "typedef " + word + " fx_word;\n";
  src += "extern \"C\" __global__ void __launch_bounds__(" + s(kIm2colBlock) + ") " + kIm2colEntry +
         "(const fx_word* __restrict__ x, fx_word* __restrict__ col) {\n";
  src += "  for (" + I + " i = " + I + "(blockIdx.x) * " + s(kIm2colBlock) + " + " + I +
         "(threadIdx.x); i < " + s(total) + "; i += " + I + "(gridDim.x) * " + s(kIm2colBlock) +
         ") {\n";
  if (plan.channels_major) {
    src += "    const " + I + " p = i % " + P + ", k = (i / " + P + ") % " + K + ";\n";
  } else {
    src += "    const " + I + " k = i % " + K + ", p = (i / " + K + ") % " + P + ";\n";
  }
  src += "    const " + I + " n = i / (" + s(plan.positions * plan.taps) + ");\n";
  const std::string S2 = s(plan.k_sizes[2]), S1 = s(plan.k_sizes[1]);
  src += "    const " + I + " " + names[plan.k_dims[2]] + " = k % " + S2 + ";\n";
  src += "    const " + I + " " + names[plan.k_dims[1]] + " = (k / " + S2 + ") % " + S1 + ";\n";
  src += "    const " + I + " " + names[plan.k_dims[0]] + " = k / " +
         s(plan.k_sizes[2] * plan.k_sizes[1]) + ";\n";
  const std::string OW = s(c.out_sizes[3]);
  src += "    const " + I + " ih = (p / " + OW + ") * " + s(c.stride[0]) + " - " + s(c.padding[0]) +
         " + kh * " + s(c.dilation[0]) + ";\n";
  src += "    const " + I + " iw = (p % " + OW + ") * " + s(c.stride[1]) + " - " + s(c.padding[1]) +
         " + kw * " + s(c.dilation[1]) + ";\n";
  src += "    col[i] = (ih >= 0 && ih < " + s(c.x_sizes[2]) + " && iw >= 0 && iw < " +
         s(c.x_sizes[3]) + ") ? x[n * " + s(c.x_strides[0]) + " + cin * " + s(c.x_strides[1]) +
         " + ih * " + s(c.x_strides[2]) + " + iw * " + s(c.x_strides[3]) + "] : fx_word(0);\n";
  src += "  }\n}\n";
  return src;
}

long long im2col_grid(const GemmConvPlan& plan) {
  const std::int64_t total = plan.images * plan.taps * plan.positions;
  return std::clamp<long long>((total + kIm2colBlock - 1) / kIm2colBlock, 1, 8192);
}

std::vector<float> im2col_host(const GemmConvPlan& plan, const std::vector<float>& x) {
  const ConvSpec& c = plan.conv;
  std::vector<float> col(static_cast<std::size_t>(plan.images * plan.taps * plan.positions));
  for (std::size_t i = 0; i < col.size(); ++i) {
    const Tap t = tap_of(plan, static_cast<std::int64_t>(i));
    if (t.ih < 0 || t.ih >= c.x_sizes[2] || t.iw < 0 || t.iw >= c.x_sizes[3]) continue;
    col[i] = x[static_cast<std::size_t>(t.n * c.x_strides[0] + t.cin * c.x_strides[1] +
                                        t.ih * c.x_strides[2] + t.iw * c.x_strides[3])];
  }
  return col;
}

}  // namespace fxscope::gpu
