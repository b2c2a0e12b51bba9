#pragma once
// Flops and bytes of one ATen node from its TensorMeta and its inputs'. Symbolic dimensions are
// evaluated with a hint map (symbol -> value); a symbol without a hint counts as
// kDefaultSymbolValue, so costs of dynamic graphs stay finite and comparable.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fxscope/graph/graph.h"
#include "fxscope/graph/tensor_meta.h"

namespace fxscope::ops {

// Symbol -> value, e.g. {"s77", 8} from the log's create_symbol hints.
using SymbolHints = std::map<std::string, std::int64_t, std::less<>>;

// The value an unhinted symbol takes: a typical small batch size.
inline constexpr std::int64_t kDefaultSymbolValue = 64;

// The value of DIM (integer, or an expression of symbols with + - * // and parentheses).
std::int64_t eval_dim(const graph::Dim& dim, const SymbolHints& hints);
// The constant term of DIM once sympy expands it, every symbol and every floor division, modulo
// or call taken as an opaque atom: ((s53 - 1)//8 + 1)**2 expands to ... + 1, 72*s77 to no
// constant (0). Inductor's tiling takes an index term that is a loop variable alone as the
// variable the access is contiguous along, so a symbolic stride with constant term 1 reads as
// stride 1 there. nullopt where the expression is not a polynomial of such atoms.
std::optional<std::int64_t> constant_term(const graph::Dim& dim);
// Product of the sizes of META; 1 for a 0-d tensor.
std::int64_t numel(const graph::TensorMeta& meta, const SymbolHints& hints);
// Bytes per element of a dtype as FX prints it (f32 -> 4, bf16 -> 2, b8 -> 1); 4 when unknown.
std::int64_t dtype_bytes(std::string_view dtype);

// What one node computes and moves.
struct OpCost {
  double flops = 0.0;
  double bytes_read = 0.0;
  double bytes_written = 0.0;
};

// The cost of node ID of GRAPH. Tuple results (no meta) take their size from getitem users.
OpCost op_cost(const graph::Graph& graph, graph::NodeId id, const SymbolHints& hints);

}  // namespace fxscope::ops
