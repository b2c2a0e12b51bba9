#pragma once
// A group whose one kernel cannot store a padded copy of a value beside the rows of its
// reduction (Mixtral's router: the softmax over 4 experts, then its probabilities padded to 8
// for the grouped GEMM): the padding runs as a kernel of its own.

#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "fxscope/core/result.h"

#include "fxscope/fusion/planner.h"
#include "fxscope/graph/graph.h"

namespace fxscope::codegen {

// GROUP with each constant_pad_nd output (and the views it reads, where nothing else in the group
// reads them) taken out, the value the pad reads stored instead; and the group of those pads,
// reading those values. nullopt where GROUP stores no constant_pad_nd.
std::optional<std::pair<fusion::KernelGroup, fusion::KernelGroup>> split_padded_outputs(
    const graph::Graph& graph, const fusion::KernelGroup& group);

// MAKE(group) -> Result<T> for GROUP; where that fails and the group stores padded copies, for
// the group without them, then for the copies: what `run` and `fuse --cuda-source` build. Each
// group made with its result, or the whole group's error where neither way works.
template <class Make>
auto make_whole_or_split(const graph::Graph& graph, const fusion::KernelGroup& group,
                         const Make& make)
    -> Result<std::vector<std::pair<fusion::KernelGroup, std::decay_t<decltype(*make(group))>>>> {
  std::vector<std::pair<fusion::KernelGroup, std::decay_t<decltype(*make(group))>>> made;
  auto whole = make(group);
  if (whole) {
    made.emplace_back(group, std::move(*whole));
    return made;
  }
  const auto split = split_padded_outputs(graph, group);
  if (!split) return whole.error();
  auto rest = make(split->first);
  if (!rest) return whole.error();
  auto pads = make(split->second);
  if (!pads) return whole.error();
  made.emplace_back(split->first, std::move(*rest));
  made.emplace_back(split->second, std::move(*pads));
  return made;
}

}  // namespace fxscope::codegen
