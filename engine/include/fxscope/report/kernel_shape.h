#pragma once
// The shape class of a library kernel: what, beyond its bytes and FLOPs, decides which kernel
// cuDNN or the attention implementation runs, and so how near the peaks it gets. A path of
// components from the coarsest to the finest ("fwd/cl/3x3/s1/c>=64"); the calibration fits a
// curve to each prefix that has enough kernels, and a kernel is priced by the longest prefix
// with a curve (cost::Calibration::find).

#include <string>

#include "fxscope/cost/calibration.h"
#include "fxscope/fusion/fusion_plan.h"
#include "fxscope/graph/graph.h"

namespace fxscope::report {

// Convolutions: direction (fwd; bwd for grad input and weight, bwd_w for the weight alone,
// bwd_d for the input alone), layout (cl: channels-last input, else nchw), kernel (1, 3 or k
// for larger, once per spatial dimension: 1x1, 3x3, kxk for a 2-d convolution, 3x3x3 for a 3-d),
// stride (s1, s2 for any stride over 1), channels (cin<=4 for a stem's RGB input; dw or g per group
// for grouped convolutions; c<64 or c>=64 for the smaller of C_in and C_out). Attention: direction
// (fwd, bwd), `eager` for an eager call's (the op on the model's own tensors, not on inputs a
// compiled graph laid out for it), mask (bias: an additive mask, causal, none), head dim (d<=64,
// d>64), sequence length (l<=256, l>256). Reductions (Inductor's and eager ones): width (r<=16,
// r<=128, r<=1024, r>1024 elements reduced per row), rows (rows<1k, rows<64k, rows>=64k), the
// reduced axis in memory (inner: contiguous, outer: across memory, as the lowering's loads vote),
// then `thread` where the engine's kernel runs one thread a row (4,096 rows or more of a reduction
// over dims that are not the innermost, outside max-autotune, which times other launches).
// GEMMs: the kernel (template: a generated GEMM template, max-autotune's; library: cuBLAS's).
// Empty for other classes or where the node's shapes are symbolic.
std::string kernel_shape(const fusion::KernelGroup& group, const graph::Graph& graph,
                         cost::KernelClass kernel_class, fusion::Mode mode);

}  // namespace fxscope::report
