#pragma once
// Kernels PyTorch ran, mapped back to fusion groups and graph nodes: eager kernels by the NVTX
// range of the op that launched them, compiled kernels by Inductor's kernel name, extern kernels
// (cuBLAS and other libraries) by their place between the named kernels in launch order.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "fxscope/gpu/cupti_records.h"
#include "fxscope/graph/graph.h"
#include "fxscope/report/run_result.h"
#include "fxscope/trace/compile_unit.h"

namespace fxscope::gpu {

// One kernel of an Inductor plan: its name and the post-grad nodes it runs.
struct PlanKernel {
  std::string name;
  std::vector<std::string> nodes;
  bool is_extern = false;
};

// One compiled graph's kernels in launch order, and which compile it comes from.
struct KernelPlan {
  std::vector<PlanKernel> kernels;
  // The mode Inductor compiled it in ("default", "reduce-overhead", "max-autotune"), read from the
  // Inductor config its fx_graph_runnable records; empty when the log has no runnable.
  std::string mode;
  bool driver = false;  // one of the PyTorch driver's own compiles, not the captured log's
};

// Where a kernel name occurs: a plan and a position in it.
struct PlanPlace {
  std::size_t plan = 0;
  std::size_t kernel = 0;
};

// Inductor's kernels of one or more units, in launch order per plan, and by name; and the
// captured unit's post-grad nodes traced back to the Dynamo nodes the user wrote.
struct KernelIndex {
  std::vector<KernelPlan> plans;
  // Every place of each name, in plan order: the capture and the driver's compiles (one per mode)
  // name their kernels alike, and a kernel launched several times occurs once per launch.
  std::unordered_map<std::string, std::vector<PlanPlace>> by_name;
  // Post-grad (and AOT) node name -> Dynamo node names, from Inductor's provenance mapping where
  // the log has it, else source locations. Nodes the log does not trace are absent.
  std::unordered_map<std::string, std::vector<std::string>> dynamo_of;
  // Post-grad nodes that make the RNG seeds (prims.inductor_seeds): what Inductor's randint call
  // and, under CUDA graphs, the replay's refill of the generator's seed and offset run for.
  std::vector<std::string> rng_nodes;

  // The captured graphs' post-grad nodes by structural signature (same op on the same inputs,
  // whatever the names), in graph order.
  std::unordered_map<std::uint64_t, std::vector<std::string>> captured_by_signature;

  // Adds the Inductor kernels of every post-grad graph of UNIT (a plan each). DRIVER marks the
  // PyTorch driver's own compiles: it compiles the runnable again, and its post-grad graph names
  // nodes its own way (the same GEMM is mm_192 in one and mm_189 in the other), so each of its
  // nodes takes the name of the captured node with its signature; add the captured unit first.
  void add_unit(const trace::CompileUnit& unit, bool driver = false);
  // Adds the Dynamo nodes of UNIT's post-grad nodes (the captured unit, not the driver's own
  // compiles: those trace back to the runnable script, not to the user's code).
  void add_dynamo_map(const trace::CompileUnit& unit);
  // The Dynamo nodes of NODES, sorted, each once.
  std::vector<std::string> dynamo_nodes(const std::vector<std::string>& nodes) const;

 private:
  // The name each node of G takes in the index: its own in a captured graph (which records its
  // signature), the matching captured node's in a driver's graph where one matches. INPUTS names
  // the captured input each placeholder of G receives.
  std::vector<std::string> node_names(const graph::Graph& g, bool driver,
                                      const std::vector<std::string>& inputs);
};

// The group name of kernels that copy inputs into a CUDA graph's static buffers.
inline constexpr const char* kCudaGraphInputCopy = "cudagraph input copy";
// The group name of the two fills of the RNG generator's seed and offset before each CUDA graph
// replay (PyTorch's graph-safe Philox state), outside the graph.
inline constexpr const char* kCudaGraphRngState = "cudagraph rng state";

// The first-call launch CUPTI recorded as KERNEL, for a mode's timeline.
report::RunLaunch run_launch(const KernelRecord& kernel);

// The kernels of RECORDS launched inside the NVTX ranges named PREFIX + i, attributed through
// INDEX (compiled modes) or the ops' NVTX ranges (eager). A kernel is placed by its launching
// call's host time when the records have it, else by its own start: the driver ends each range
// after synchronizing, so a range holds its kernels' execution. A repeat's kernels are walked
// against the plan whose launch sequence matches theirs best; on a tie the captured log's, then
// the driver's own compile of MODE. Under CUDA graphs, kernels outside the graph after a
// "fxscope-copy:<inputs>" range (the driver marks CUDA graph trees' input copies so) belong to
// those inputs (kCudaGraphInputCopy), and the generator's fills to the RNG nodes.
report::RunMode attribute_mode(const std::string& mode, const std::string& prefix,
                               const CuptiRecords& records, const KernelIndex& index);

}  // namespace fxscope::gpu
