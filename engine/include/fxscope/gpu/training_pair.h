#pragma once
// A training unit's two graphs as torch.compile's compiled autograd function runs them: the
// forward returns the user's outputs followed by the tensors it saves for the backward, and the
// backward takes those saved tensors (its placeholders named after the forward nodes that made
// them) followed by the incoming gradients (tangents_N). Eager runs the AOT forward and backward
// graphs, the compiled modes the two post-grad graphs (Inductor compiles one each).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/graph/graph.h"
#include "fxscope/ops/op_cost.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::gpu {

struct TrainingPair {
  // Per input of the backward (graph_inputs order): the index of the forward output
  // (output_nodes order) that feeds it; nullopt for a tangent, which takes seeded random values.
  std::vector<std::optional<std::size_t>> forward_output_of;
  std::size_t saved = 0;
  std::size_t tangents = 0;
  // Backward inputs that are neither a tangent nor a forward output, and saved tensors whose
  // meta differs from the forward output's: "primals_3: no forward output of that name".
  std::vector<std::string> unmatched;
};

// Sizes agree where they print alike or, with HINTS, where they evaluate alike: the two graphs
// may spell one size differently (GPT-2's `s72*(s55 + s70)` where s55 is 0 in the backward,
// `s70*s72` in the forward Inductor simplified).
TrainingPair pair_training_graphs(const graph::Graph& forward, const graph::Graph& backward,
                                  const ops::SymbolHints& hints = {});

// The backward graph of UNIT as MODE runs it, planned (the AOT backward for eager, the second
// post-grad graph otherwise); nullopt for a unit without one (inference).
std::optional<fusion::GraphFusion> backward_fusion(const trace::CompileUnit& unit,
                                                   fusion::Mode mode);

}  // namespace fxscope::gpu
