// Inductor's C++ kernels: CppScheduling.codegen_node adds each node to one KernelGroup and writes
// no kernel until Scheduler._codegen flushes it, so the CPU work between two flushes is one
// cpp_fused_* launch whatever the fusion pass decided.

#include "fxscope/fusion/cpp_kernel_group.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

namespace fxscope::fusion {
namespace {

enum class Place { cpu, elsewhere, none };

// Where GROUP runs for the flush rule: none for a node that launches nothing (a MultiOutput,
// Inductor's NopKernelSchedulerNode keeps the group open), elsewhere for a library call, a
// template or a node on another device, all of which flush.
Place place_of(const graph::Graph& graph, const LoweredGraph& lowered,
               const std::vector<std::size_t>& group) {
  const SchedulerNode& head = lowered.nodes[group.front()];
  if (!head.launches) return Place::none;
  if (!head.fusable || head.template_gemm) return Place::elsewhere;
  for (const std::size_t m : group) {
    const graph::Node& node = graph.node(lowered.nodes[m].node);
    if (!node.meta || node.meta->device != "cpu") return Place::elsewhere;
  }
  return Place::cpu;
}

// The buffers the kernel group of MEMBERS takes as arguments: what it loads from outside and
// what it stores.
std::size_t argument_count(const LoweredGraph& lowered, const std::vector<std::size_t>& members) {
  std::set<std::int64_t> written;
  std::set<std::int64_t> args;
  for (const std::size_t m : members) written.insert(lowered.nodes[m].buffer);
  for (const std::size_t m : members) {
    for (const std::int64_t b : lowered.nodes[m].reads) {
      if (!written.count(b)) args.insert(b);
    }
  }
  return args.size() + written.size();
}

}  // namespace

void group_cpp_kernels(const graph::Graph& graph, const LoweredGraph& lowered,
                       std::vector<std::vector<std::size_t>>& groups) {
  std::vector<std::vector<std::size_t>> out;
  // The index in OUT of the kernel group being filled; none past the end.
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  std::size_t open = none;
  for (std::vector<std::size_t>& group : groups) {
    const Place place = place_of(graph, lowered, group);
    if (place == Place::cpu && open != none) {
      std::vector<std::size_t>& kernel = out[open];
      std::vector<std::size_t> members;
      std::merge(kernel.begin(), kernel.end(), group.begin(), group.end(),
                 std::back_inserter(members));
      kernel = std::move(members);
      if (argument_count(lowered, kernel) > kMaxCppKernelArgs) open = none;
      continue;
    }
    if (place == Place::elsewhere) open = none;
    out.push_back(std::move(group));
    if (place == Place::cpu) open = out.size() - 1;
  }
  groups = std::move(out);
}

}  // namespace fxscope::fusion
