#pragma once
// The op registry: one table (ops/op_table.cpp) with a row for every ATen op met in the sample
// logs and the common CNN/transformer vocabulary. Lookup is by the target as FX prints it.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_info.h"

namespace fxscope::ops {

// "torch.ops.aten.add.Tensor" -> "aten.add"; "torch.ops.prims.iota.default" -> "prims.iota";
// "operator.getitem" stays; "torch.ops.higher_order.wrap" -> "higher_order.wrap".
std::string_view op_key(std::string_view target);
// The op's base name as Inductor uses it in kernel names: "add", "convert_element_type".
std::string_view op_base_name(std::string_view target);

// The row for TARGET, or nullptr when the table lacks it.
const OpInfo* find_op(std::string_view target);
// The row for TARGET; an opaque extern-kernel row named after the target when the table lacks it.
OpInfo classify(std::string_view target);

// Whether TARGET is a known library call (a GEMM, convolution or attention kernel): a generated
// kernel never computes it, though Inductor can name it among a kernel's origins (the bias a
// convolution adds after the call, an input copied into the layout the call requires).
bool runs_in_library(std::string_view target);

// Whether NODE is an op Inductor lowers to a view of its input (permute, reshape, slice ...).
bool is_view_op(const graph::Node& node);

// Every row, for documentation and tests.
const std::vector<OpInfo>& op_table();

// An op the registry lacks, with how often a graph uses it: reported, never dropped.
struct UnknownOp {
  std::string target;
  std::size_t count = 0;
};

}  // namespace fxscope::ops
