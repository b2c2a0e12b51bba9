#pragma once
// Digests of what each step of a checked launch writes (Executable::launch's AFTER_STEP), read
// back while the step's buffers still hold it: the arena reuses them later.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fxscope/gpu/value_digest.h"
#include "runtime/executable.h"

namespace fxscope::gpu {

class StepDigests {
 public:
  StepDigests(const Executable& exe, const graph::Graph& graph, const ops::SymbolHints& hints);
  void operator()(std::size_t step);
  // In the order the values were first written; a value written twice keeps its last digest.
  std::vector<ValueDigest> take() { return std::move(values_); }

 private:
  // ValueDigest::terms_abs_sum of node N (NUMEL elements): from its input's digest, where N is a
  // sum or mean of a value (through casts and views) this launch digested earlier, or a cast or
  // view of such a sum.
  double terms_abs_sum(graph::NodeId n, std::int64_t numel) const;
  const Executable& exe_;
  const graph::Graph& graph_;
  ops::SymbolHints hints_;
  std::vector<std::string> computed_in_;
  std::map<graph::NodeId, std::size_t> index_;
  std::vector<ValueDigest> values_;
};

}  // namespace fxscope::gpu
