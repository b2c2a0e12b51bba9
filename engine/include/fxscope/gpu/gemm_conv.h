#pragma once
// A convolution as one GEMM, max-autotune's alternative to cuDNN's plans (as Inductor's
// max-autotune lowers 1x1 convolutions to mm and tries GEMM templates). cuDNN's FP32 plans
// parallelise badly over few output positions: at batch 1 on the H200, ResNet-50's layer-4 3x3
// convolution (49 positions) took 115 us under cuDNN's heuristics' FP32 plan and 34 us as an
// im2col plus one cuBLAS GEMM (bench_conv_as_gemm).
//
// Per image, with P output positions and K = Cin x KH x KW taps:
// - output channels-major (NCHW: positions contiguous): out[Cout, P] = W[Cout, K] x col[K, P];
// - output channels-minor (NHWC): out[P, Cout] = col[P, K] x W^T[K, Cout].
// col is the input gathered per tap (im2col), laid out as its GEMM operand reads it. A 1x1,
// stride-1, unpadded convolution needs none: the input itself is the operand. The weight is read
// as it lies: K enumerates its (Cin, KH, KW) dims in memory order, so they must be dense with
// unit stride (contiguous and channels-last weights both are). Grouped convolutions and a bias
// on a channels-major output are not planned (cuDNN keeps them).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fxscope/core/result.h"
#include "fxscope/gpu/conv_spec.h"
#include "fxscope/gpu/cudnn_conv_check.h"
#include "fxscope/gpu/gemm_spec.h"

namespace fxscope::gpu {

// Which buffer a GEMM operand reads.
enum class GemmConvOperand { input, col, weight };

struct GemmConvPlan {
  ConvSpec conv;  // as 2-d (with_two_spatial_dims)
  bool channels_major = true;
  bool direct = false;  // no im2col: the input is the operand
  std::int64_t images = 1, positions = 0, taps = 0, out_channels = 0;
  // The weight dims K enumerates, slowest first (0 = Cin, 1 = KH, 2 = KW), and their sizes.
  std::array<int, 3> k_dims{0, 1, 2};
  std::array<std::int64_t, 3> k_sizes{0, 0, 0};
  std::int64_t col_elements = 0;  // 0 when direct
  // The product; its operands' node ids are the convolution's, the pointers say which buffer
  // each reads (a_reads, b_reads).
  GemmSpec gemm;
  GemmConvOperand a_reads = GemmConvOperand::weight;
  GemmConvOperand b_reads = GemmConvOperand::col;
};

// SPEC as one GEMM, or why it cannot be (naming the shape).
Result<GemmConvPlan> plan_gemm_conv(const ConvSpec& spec);

// The im2col kernel of PLAN (entry fxscope_im2col, one argument pair: input, col), elements
// copied as same-width words, so one source serves f32, f16 and bf16; and its launch.
std::string im2col_source(const GemmConvPlan& plan);
constexpr int kIm2colBlock = 256;
inline constexpr const char* kIm2colEntry = "fxscope_im2col";
// What runs a convolution with an im2col (GemmConv::what(), the end of its step's name): the
// im2col kernel launches first.
inline constexpr const char* kIm2colGemm = "im2col + cuBLASLt GEMM";
long long im2col_grid(const GemmConvPlan& plan);

// What that kernel writes, computed on the host from the input's storage (f32), for tests.
std::vector<float> im2col_host(const GemmConvPlan& plan, const std::vector<float>& x);

// SPEC (f32) run once on the local GPU as the plan says, its GEMM tuned as in max-autotune: the
// output's storage, for tests. The error says "no CUDA device" where none is.
Result<std::vector<float>> run_gemm_conv(const ConvSpec& spec, const ConvData& data);

}  // namespace fxscope::gpu
