#pragma once
// Seeded random values for the inputs of a captured graph (activations and weights alike), of
// the recorded shapes, dtypes and strides: the same seed gives the same bytes on every machine,
// so eager and the fused modes read identical inputs and runs can be repeated.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/graph/tensor_meta.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::gpu {

// The graph's inputs in the order the runtime fills them: its placeholders, then the constants
// it reads with get_attr (the log holds no values for either, so both take random values); a
// get_attr of one of the graph's subgraphs is code, not an input.
std::vector<graph::NodeId> graph_inputs(const graph::Graph& graph);
// For each input of GRAPH, the place among REFERENCE's inputs that holds the same value, so that
// the two are fed the same bytes: the input of the same name, else (a parameter frozen into a
// constant: Inductor's freezing, AOTInductor) the next of REFERENCE's inputs left unnamed of the
// same shape and dtype, in order; an input with neither gets a place past REFERENCE's.
std::vector<std::size_t> input_slots(const graph::Graph& graph, const graph::Graph& reference);
// The nodes the graph returns, in its output's order (a node returned twice is listed twice).
std::vector<graph::NodeId> output_nodes(const graph::Graph& graph);

// Elements the storage of META spans: 1 + sum((size - 1) * stride), 0 for an empty tensor.
std::int64_t storage_elements(const graph::TensorMeta& meta, const ops::SymbolHints& hints);
// Bytes that storage holds: storage_elements times the dtype's size (0 for a symbolic scalar).
std::size_t storage_bytes(const graph::TensorMeta& meta, const ops::SymbolHints& hints);

// The exclusive upper bound of the values an integer input may take, from the ops that index
// with it (embedding, index, gather, index_select); nullopt when no user indexes with it.
std::optional<std::int64_t> index_bound(const graph::Graph& graph, graph::NodeId input,
                                        const ops::SymbolHints& hints);

// The bytes of one input of META. Floats are uniform in +-1/sqrt(fan-in) (clamped to
// [0.02, 1]) for matrices, so deep stacks stay finite, and in [0.5, 1.5) for vectors (scales,
// biases, a batch norm's variance must be positive); integers in [0, BOUND) (default 2);
// booleans are 0 or 1.
std::vector<std::byte> random_tensor(const graph::TensorMeta& meta, const ops::SymbolHints& hints,
                                     std::uint64_t seed, std::optional<std::int64_t> bound);

// The bytes of every input of GRAPH in graph_inputs order (empty for a symbolic scalar): FILL's
// where it gives some (a backward's saved tensors), else random_tensor with the seed of the
// input's place (BASE_SEED mixed with the index, so graphs fed alike draw alike) and BOUND's
// range.
using InputBound = std::function<std::optional<std::int64_t>(std::size_t input)>;
using InputFill = std::function<std::optional<std::vector<std::byte>>(
    std::size_t input, const graph::TensorMeta& meta)>;
std::vector<std::vector<std::byte>> seeded_inputs(const graph::Graph& graph,
                                                  const ops::SymbolHints& hints,
                                                  std::uint64_t base_seed, const InputBound& bound,
                                                  const InputFill& fill = {});

}  // namespace fxscope::gpu
