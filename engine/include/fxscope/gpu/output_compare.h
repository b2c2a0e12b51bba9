#pragma once
// How far a fused mode's output is from eager's: the largest absolute difference over the
// largest magnitude of eager's output (a norm-wise relative error, so values near zero do not
// dominate), element by element in logical order, whatever strides each side has.

#include <cstddef>
#include <vector>

#include "fxscope/graph/tensor_meta.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// One output of a graph, copied back to the host (its storage bytes and its meta).
struct HostOutput {
  graph::TensorMeta meta;
  std::vector<std::byte> bytes;
};

// One tensor on the host: its storage bytes (from the element its view starts at) and its meta.
struct HostView {
  const graph::TensorMeta* meta = nullptr;
  const std::byte* data = nullptr;
};

// The relative error of ACTUAL against EXPECTED; infinity when their shapes differ or when only
// one side has a NaN or an infinity at some element; 0 for two empty tensors.
double relative_error(const HostView& expected, const HostView& actual,
                      const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
