#pragma once
// A matrix product node of an ATen graph (mm, addmm, bmm, baddbmm) described the way cuBLASLt
// takes it: each operand as rows x columns with its own row, column and batch strides (a
// transposed view is a column-major matrix, never a copy), plus the bias and scalars.

#include <cstdint>
#include <optional>
#include <string>

#include "fxscope/core/result.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// One operand: the node whose value it is (possibly a view), its logical shape and strides.
struct MatrixOperand {
  graph::NodeId node = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 1;
  std::int64_t batch = 1;
  std::int64_t batch_stride = 0;

  // Row-major in memory (column stride 1); else column-major (row stride 1).
  bool row_major() const { return col_stride == 1; }
};

enum class GemmEpilogue { none, relu, gelu_tanh };

struct GemmSpec {
  std::string op;  // "aten.addmm"
  std::string dtype;
  MatrixOperand a;  // M x K
  MatrixOperand b;  // K x N
  MatrixOperand out;
  std::optional<graph::NodeId> bias_vector;  // addmm's bias broadcast over rows: length N
  std::optional<MatrixOperand> bias_matrix;  // a full M x N addend (beta * C)
  double alpha = 1.0;
  double beta = 0.0;
  GemmEpilogue epilogue = GemmEpilogue::none;
};

// True for the ops describe_gemm takes.
bool is_gemm_target(const std::string& target);
// The product NODE computes; an error names the node and what layout or argument it cannot take.
Result<GemmSpec> describe_gemm(const graph::Graph& graph, graph::NodeId node,
                               const ops::SymbolHints& hints);

}  // namespace fxscope::gpu
