#pragma once
// Inductor's memory dependencies (torch/_inductor/dependencies.py MemoryDep): for each buffer a
// kernel loads or stores, the address as a function of the kernel's loop. Fusion compares them:
// a consumer fuses with its producer only where it reads what the producer wrote at the address
// it was written (Scheduler.fusable_read_and_write), and the bytes two kernels share decide
// which pairs fuse first (score_fusion_memory).
//
// An address is modelled as a sum of digits of the kernel's flattened iteration index: digit
// (place, radix) is (index / place) % radix, times a multiplier. Permutes, slices, selects,
// expands and reshapes all map to such sums (a reshape splits digits where the sizes cut them);
// anything else (an indirect load, a flip, a pooling window) makes the address opaque, which
// matches nothing, as Inductor's temporaries do.

#include <cstdint>
#include <optional>
#include <vector>

#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"

namespace fxscope::fusion {

// One digit of the flattened iteration index and what a step of it adds.
struct IndexTerm {
  std::int64_t place = 1;
  std::int64_t radix = 1;
  std::int64_t mult = 0;
  friend bool operator==(const IndexTerm&, const IndexTerm&) = default;
};

// One coordinate of a value, or one address, as a function of the iteration.
struct IndexExpr {
  std::vector<IndexTerm> terms;
  std::int64_t offset = 0;
  bool opaque = false;
  // Of an opaque coordinate: 1 + the node whose indirect load made it (0: unknown). The same
  // indirect load inlined into two kernels gives both the same address expression.
  std::int64_t tag = 0;
};

// A value's coordinates, one per dim.
using Coords = std::vector<IndexExpr>;

// One load or store of a kernel: a buffer at an address, over an iteration of some size.
struct MemoryDep {
  std::int64_t buffer = -1;
  std::vector<IndexTerm> terms;  // canonical: outermost digit first, adjacent digits merged
  std::int64_t offset = 0;
  bool opaque = false;
  // > 0: the address re-indexed by an outer split reduction into this many parts. Two such
  // loads of one split match; no store does.
  std::int64_t split = 0;
  std::int64_t tag = 0;    // of an opaque address: the indirect load it comes from, as IndexExpr
  std::int64_t bytes = 0;  // the elements the address covers, times the element size
  // The sizes of the kernel's loops, outermost first, where pick_loop_order runs them in another
  // order than the value's dims (loop_order.h); empty where they run in the value's order.
  // Inductor's deps are not normalized before fusion (loop_ordering_after_fusion), so their
  // sizes tell two loop orders apart even where the address is the same.
  std::vector<std::int64_t> loops;
  // The loop variables of the node making it (MemoryDep.num_vars): its dims other than 1, a
  // reduction's kept and reduced ones, as Inductor's nodes keep them unmerged until fusion
  // (loop_ordering_after_fusion); 0 where not known.
  std::int64_t vars = 0;
  // The multipliers of digits whose stride Inductor writes symbolically with a constant term
  // of 1 (((s - 1)//8 + 1)**2 expands to ... + 1): in the expanded index such a digit's loop
  // variable stands alone as a term, as a stride-1 one does, and tiling_utils'
  // find_coalesced_var takes the outermost of those as the one the access is contiguous along.
  std::vector<std::int64_t> lone_mults;

  // Inductor's MemoryDep equality: same buffer, address and iteration. An opaque address holds
  // a temporary and equals only the same indirect load made elsewhere.
  bool same_as(const MemoryDep& other) const { return same_address(other) && loops == other.loops; }
  bool same_address(const MemoryDep& other) const {
    if (opaque || other.opaque) {
      return opaque && other.opaque && tag != 0 && tag == other.tag && buffer == other.buffer;
    }
    return !opaque && !other.opaque && buffer == other.buffer && offset == other.offset &&
           split == other.split && terms == other.terms;
  }
  // fusable_read_and_write: this read loads what WRITE stored, at the same address, possibly
  // over further inner loops that the address does not use (an epilogue broadcast over a row).
  bool reads_as_written(const MemoryDep& write) const;
};

// The coordinates of a value of SIZES when a kernel iterates over exactly that value.
Coords iteration_coords(const std::vector<std::int64_t>& sizes);
// The coordinates of a reduction's input of SIZES when the kernel loops over the kept dims, then
// the REDUCED ones (Inductor's pointwise ranges, then reduction ranges).
Coords reduction_coords(const std::vector<std::int64_t>& sizes,
                        const std::vector<std::int64_t>& reduced);
// The address Σ coords[k] * strides[k] of BUFFER, canonical over an iteration of ITER_NUMEL.
MemoryDep make_dep(std::int64_t buffer, const Coords& coords,
                   const std::vector<std::int64_t>& strides, std::int64_t iter_numel,
                   std::int64_t element_bytes);
// The coordinates of a value of IN_SIZES read as a value of OUT_SIZES at coordinates OUT (a
// view or reshape of contiguous memory); opaque coordinates where the digits do not split.
Coords reshape_coords(const Coords& out, const std::vector<std::int64_t>& out_sizes,
                      const std::vector<std::int64_t>& in_sizes);

// Inductor's loop reordering (config.loop_ordering_after_fusion): two kernels that address a
// buffer alike but walk it in different loop orders fuse once one of them, a pointwise kernel,
// takes the other's order. normalize_with_stride_order: whether A and B address the same
// elements the same way once each one's loop digits are sorted by stride.
bool same_stride_order(const MemoryDep& a, const MemoryDep& b);
// The sizes of a dep's merged loops (MemoryDep.normalize().size): loops whose strides chain
// merge, wherever they sit.
std::vector<std::int64_t> loop_sizes(const MemoryDep& d);

// A renaming of a kernel's loop digits: the digit at FROM (of RADIX) moves to place TO.
struct LoopPiece {
  std::int64_t from = 1;
  std::int64_t radix = 1;
  std::int64_t to = 1;
};
using LoopOrder = std::vector<LoopPiece>;

// decide_loop_order_to_match: the renaming of the loops of FROM's kernel that makes FROM
// address memory as TO does; nullopt when no renaming does.
std::optional<LoopOrder> loop_order_to_match(const MemoryDep& from, const MemoryDep& to);
// D of a kernel whose loops are renamed by ORDER (opaque where a digit of D falls outside it).
MemoryDep reorder_loops(const MemoryDep& d, const LoopOrder& order);

// One value a node loads while computing its output at some coordinates.
struct ValueLoad {
  graph::NodeId value = 0;
  Coords coords;
};

// A key telling two loads apart: the value and its coordinates (a walk visits each once).
std::vector<std::int64_t> load_key(const ValueLoad& load);
// A load of BUFFER at an address not modelled: equal to no other dependency.
MemoryDep opaque_dep(std::int64_t buffer);
// Appends DEP to DEPS unless an equal one is there (two opaque loads of one buffer are one).
void add_dep(std::vector<MemoryDep>& deps, MemoryDep dep);

// How each op of a graph reads its inputs: the coordinates of every input a node loads for
// given coordinates of its output.
class IndexModel {
 public:
  IndexModel(const graph::Graph& graph, const ops::SymbolHints& hints);

  // Sizes of node N's value (of its first tensor for a tuple); empty for a scalar.
  const std::vector<std::int64_t>& sizes(graph::NodeId n) const { return sizes_[n]; }
  // Strides of node N's value as recorded, else contiguous.
  std::vector<std::int64_t> strides(graph::NodeId n) const;
  std::int64_t element_bytes(graph::NodeId n) const;
  std::int64_t numel(graph::NodeId n) const;

  // The loads node N makes for output coordinates OUT. An input whose coordinates cannot be
  // modelled is loaded at opaque coordinates; unrolled reductions load each position.
  std::vector<ValueLoad> loads(graph::NodeId n, const Coords& out) const;
  // The dims a reduction node reduces, in its input's numbering (every dim when none is given);
  // nullopt when N is not a reduction over dims.
  std::optional<std::vector<std::int64_t>> reduced_dims(graph::NodeId n) const;
  // The loads element K of foreach op F (lowering_ops.h) makes at coordinates OUT of an element of
  // SIZES: the items at position K of its lists, and its tensors outside lists, broadcast.
  std::vector<ValueLoad> foreach_loads(graph::NodeId f, std::size_t k,
                                       const std::vector<std::int64_t>& sizes,
                                       const Coords& out) const;

 private:
  std::vector<ValueLoad> view_loads(graph::NodeId n, const Coords& out) const;
  std::vector<ValueLoad> injective_loads(graph::NodeId n, const Coords& out) const;
  std::vector<ValueLoad> broadcast_loads(graph::NodeId n, const Coords& out) const;
  std::vector<ValueLoad> unrolled_loads(graph::NodeId n, const Coords& out) const;
  std::vector<ValueLoad> getitem_loads(graph::NodeId n, const Coords& out) const;
  std::vector<ValueLoad> opaque_loads(graph::NodeId n) const;
  std::optional<std::int64_t> int_arg(graph::NodeId n, std::size_t pos) const;
  std::optional<graph::NodeId> node_arg(graph::NodeId n, std::size_t pos) const;

  const graph::Graph& g_;
  const ops::SymbolHints& hints_;
  std::vector<std::vector<graph::NodeId>> users_;
  std::vector<std::vector<std::int64_t>> sizes_;
};

}  // namespace fxscope::fusion
