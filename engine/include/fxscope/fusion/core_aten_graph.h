#pragma once
// An exported program's graph as the core ATen IR: torch.export's training IR keeps composite ops
// (linear, conv2d, batch_norm, layer_norm, softmax, flatten, chunk, scaled_dot_product_attention,
// ...) that ExportedProgram.run_decompositions() replaces by core ATen ops before AOTInductor
// compiles the program. fxscope plans and runs that decomposed graph, so an export log is priced
// as the kernels it compiles to and runs on fxscope's runtime, which has no composite ops.

#include <cstddef>
#include <string>

#include "fxscope/core/diagnostics.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion {

struct CoreAtenGraph {
  graph::Graph graph;
  std::size_t decomposed = 0;        // composite ops replaced by core ATen ops
  std::size_t strides_inferred = 0;  // annotations that printed no strides, given them here
  std::size_t functionalized = 0;    // in-place ops made functional (relu_ -> relu)
  Warnings warnings;                 // a composite op kept, named, with what it lacked
};

// Whether GRAPH holds an op fusion::export_composite_op names.
bool has_export_composite_ops(const graph::Graph& graph);

// GRAPH (topologically ordered, as readable code parses) with each in-place op made functional
// (its later users read its result) and each composite op replaced by the
// core ATen ops it decomposes to (the last of them keeps the op's name, annotation and source line;
// the others are named after it), and with strides for annotations that print none (an exported
// program prints sizes only): a view takes its input's strides as PyTorch computes them, any other
// value is dense. A composite op whose arguments or sizes do not say how it decomposes is kept,
// with a warning prefixed with WHERE.
// HINTS give symbolic sizes the values a view's strides are worked out at (which dims of its
// input it can keep as they are).
CoreAtenGraph core_aten_graph(const graph::Graph& graph, const std::string& where,
                              const ops::SymbolHints& hints = {});

}  // namespace fxscope::fusion
