#pragma once
// What the engine knows about one ATen op: its class (TVM-style, plus view and opaque), how
// Inductor lowers it, how many kernels eager PyTorch launches for it, and how its flops scale.

#include <cstdint>
#include <string_view>

namespace fxscope::ops {

// The op classes of FUSION.md, ordered as TVM orders them, plus views and opaque ops.
enum class OpClass : std::uint8_t {
  pointwise,
  broadcast,
  injective,  // gathers, concatenation, padding: any output element reads a computed address
  reduction,
  gemm,  // mm, addmm, bmm, baddbmm
  conv,
  attention,  // scaled dot product attention variants
  view,       // no kernel: rewrites the consumer's indexing
  opaque,     // not in the table, or nothing fusion can reason about
};

// How Inductor lowers the op, which decides what becomes a buffer and what is inlined.
enum class Lowering : std::uint8_t {
  pointwise,      // a Pointwise IR: inlined into its consumers unless realized
  view,           // a view of its input (no buffer)
  reduction,      // a Reduction IR: always a buffer of its own (prepare_softmax_online: max
                  // and sum in one pass, both outputs buffers read through getitems)
  welford,        // var_mean: one reduction with two outputs (the variance is a pointwise of it)
  scan,           // cumsum-like: a buffer of its own, never fused
  window,         // pooling: realizes its input, computes its own buffer
  extern_kernel,  // a library kernel or an ATen fallback: never fuses
  getitem,        // picks one output of a multi-output node
};

// How an op's flops follow from its shapes.
enum class FlopRule : std::uint8_t {
  none,        // views, copies of metadata
  per_output,  // flops_per_element x output elements
  per_input,   // flops_per_element x elements of the first input (reductions, norms)
  gemm,        // 2 x M x N x K (+ M x N for the bias)
  conv,        // 2 x output elements x input channels / groups x kernel area
  attention,   // 4 x batch x heads x query length x key length x head size
};

// One row of the registry.
struct OpInfo {
  std::string_view name;  // "aten.add", "prims.convert_element_type", "operator.getitem"
  OpClass op_class = OpClass::opaque;
  Lowering lowering = Lowering::extern_kernel;
  std::uint8_t eager_kernels = 1;  // CUDA kernels eager PyTorch launches for one call
  FlopRule flop_rule = FlopRule::none;
  float flops_per_element = 0.0F;
};

std::string_view to_string(OpClass op_class);
std::string_view to_string(Lowering lowering);

// A reduction (or var_mean's Welford reduction): it reads more elements than it writes.
inline bool reduces(Lowering lowering) {
  return lowering == Lowering::reduction || lowering == Lowering::welford;
}

}  // namespace fxscope::ops
