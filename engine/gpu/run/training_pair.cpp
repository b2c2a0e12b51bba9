#include "fxscope/gpu/training_pair.h"

#include <algorithm>
#include <unordered_map>

#include "fxscope/fusion/planner.h"
#include "fxscope/gpu/random_inputs.h"

namespace fxscope::gpu {

namespace {

bool same_sizes(const graph::TensorMeta& a, const graph::TensorMeta& b,
                const ops::SymbolHints& hints) {
  if (a.sizes == b.sizes) return true;
  if (hints.empty() || a.sizes.size() != b.sizes.size()) return false;
  for (std::size_t d = 0; d < a.sizes.size(); ++d) {
    if (ops::eval_dim(a.sizes[d], hints) != ops::eval_dim(b.sizes[d], hints)) return false;
  }
  return true;
}

}  // namespace

TrainingPair pair_training_graphs(const graph::Graph& forward, const graph::Graph& backward,
                                  const ops::SymbolHints& hints) {
  TrainingPair pair;
  std::unordered_map<std::string, std::size_t> output_index;
  const auto outputs = output_nodes(forward);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    // A node returned twice feeds the backward from its first place.
    output_index.emplace(forward.node(outputs[i]).name, i);
  }
  const auto inputs = graph_inputs(backward);
  std::size_t saved_total = 0;
  for (const graph::NodeId n : inputs) {
    if (!backward.node(n).name.starts_with("tangents_")) ++saved_total;
  }
  // The saved tensors end the forward's outputs in the order the backward takes them. Post-grad
  // passes rename some (Llama's forward returns no `amax`, its backward takes one), so a name the
  // forward lacks pairs by place, where dtype and shape agree.
  const std::size_t first_saved = outputs.size() >= saved_total ? outputs.size() - saved_total : 0;
  std::size_t k = 0;
  for (const graph::NodeId n : inputs) {
    const graph::Node& input = backward.node(n);
    if (input.name.starts_with("tangents_")) {
      pair.forward_output_of.emplace_back();
      ++pair.tangents;
      continue;
    }
    const std::size_t place = first_saved + k++;
    const auto it = output_index.find(input.name);
    const std::size_t from = it != output_index.end() ? it->second : place;
    const std::optional<graph::TensorMeta> made =
        from < outputs.size() ? forward.node(outputs[from]).meta : std::nullopt;
    const bool agree = made && input.meta && made->dtype == input.meta->dtype &&
                       same_sizes(*made, *input.meta, hints);
    if (!agree) {
      pair.unmatched.push_back(
          input.name + ": " +
          (made
               ? "the forward output " + forward.node(outputs[from]).name + " is " +
                     made->to_string() + (input.meta ? ", it takes " + input.meta->to_string() : "")
               : std::string("no forward output of that name or place")));
      pair.forward_output_of.emplace_back();
      continue;
    }
    pair.forward_output_of.push_back(from);
    ++pair.saved;
  }
  return pair;
}

namespace {

// Whether two graphs take the same inputs: dtypes and sizes, in order, and with NAMED their names
// (post-grad passes may rename a saved tensor).
bool same_inputs(const graph::Graph& a, const graph::Graph& b, bool named) {
  const auto x = graph_inputs(a);
  const auto y = graph_inputs(b);
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k) {
    const graph::Node& p = a.node(x[k]);
    const graph::Node& q = b.node(y[k]);
    if ((named && p.name != q.name) || !p.meta != !q.meta) return false;
    if (p.meta && (p.meta->dtype != q.meta->dtype || p.meta->sizes != q.meta->sizes)) return false;
  }
  return true;
}

}  // namespace

std::optional<fusion::GraphFusion> backward_fusion(const trace::CompileUnit& unit,
                                                   fusion::Mode mode) {
  if (mode != fusion::Mode::eager) {
    auto graphs = fusion::fuse_unit(unit, mode);
    if (graphs.size() < 2) return std::nullopt;
    // A unit split into several modules (DDP's buckets) compiles every module's forward before
    // any backward, and the backwards in reverse: the one of the first module takes the inputs
    // its AOT backward graph takes.
    if (graphs.size() > 2) {
      if (const auto eager = backward_fusion(unit, fusion::Mode::eager)) {
        for (const bool named : {true, false}) {
          for (std::size_t k = 1; k < graphs.size(); ++k) {
            if (same_inputs(graphs[k].post_grad, eager->post_grad, named)) {
              return std::move(graphs[k]);
            }
          }
        }
      }
    }
    return std::move(graphs[1]);
  }
  // Eager plans the unit's AOT graphs in log order: the backward of the first module is the
  // first AOT backward graph among them.
  const std::vector<const trace::Artifact*> aot = unit.aot_graphs();
  const auto backward = std::find_if(aot.begin(), aot.end(), [](const trace::Artifact* a) {
    return a->kind == trace::ArtifactKind::kAotBackwardGraph;
  });
  if (backward == aot.end()) return std::nullopt;
  auto graphs = fusion::fuse_unit(unit, fusion::Mode::eager);
  const auto k = static_cast<std::size_t>(backward - aot.begin());
  if (k >= graphs.size()) return std::nullopt;
  return std::move(graphs[k]);
}

}  // namespace fxscope::gpu
