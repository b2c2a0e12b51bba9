// prims.inductor_seeds: PyTorch draws the seeds from its generator (a randint kernel); fxscope
// derives them from the run's seed on the host and bakes them into a one-thread kernel. A
// kernel rather than a host copy so that the seeds op stays a launch of the plan as in Inductor's
// output code, and a CUDA graph replays it like any other.

#include "fxscope/codegen/rng.h"
#include "fxscope/ops/op_registry.h"
#include "kernel_context.h"

namespace fxscope::codegen {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A graph that draws this many seeds at once is not dropout; refuse rather than bake it in.
constexpr std::int64_t kMaxSeeds = 4096;

}  // namespace

std::vector<std::int64_t> rng_seed_values(std::uint64_t run_seed, std::size_t ordinal,
                                          std::int64_t count) {
  std::vector<std::int64_t> out;
  const std::uint64_t base = splitmix64(splitmix64(run_seed) ^ (ordinal + 1) * 0x100000001B3ull);
  for (std::int64_t i = 0; i < count; ++i) {
    // Non-negative, as PyTorch's randint seeds are.
    out.push_back(static_cast<std::int64_t>(splitmix64(base + static_cast<std::uint64_t>(i)) >> 1));
  }
  return out;
}

bool is_rng_seeds_op(const std::string& target) {
  return ops::op_base_name(target) == "inductor_seeds";
}

Result<GeneratedKernel> seeds_kernel(const graph::Graph& g, const fusion::KernelGroup& group,
                                     std::uint64_t run_seed) {
  const std::string where = "group " + std::to_string(group.id) + " " + group.name;
  graph::NodeId node = 0;
  std::size_t found = 0;
  for (const graph::NodeId n : group.nodes) {
    if (n < g.size() && is_rng_seeds_op(g.node(n).target)) {
      node = n;
      ++found;
    }
  }
  if (found != 1 || group.nodes.size() != 1) {
    return make_error(where + ": expected exactly one prims.inductor_seeds node");
  }
  const graph::Node& n = g.node(node);
  const std::int64_t count = !n.args.empty() && n.args[0].kind() == graph::Argument::Kind::integer
                                 ? n.args[0].as_int()
                                 : -1;
  if (count < 1 || count > kMaxSeeds || !n.meta || n.meta->dtype != "i64" || n.meta->rank() != 1) {
    return make_error(where + ": inductor_seeds (" + n.name +
                      ") expected a literal count of 1 to 4096 seeds and an i64[count] result");
  }
  std::size_t ordinal = 0;
  for (graph::NodeId k = 0; k < node; ++k)
    if (is_rng_seeds_op(g.node(k).target)) ++ordinal;

  GeneratedKernel kernel;
  kernel.entry = "fx_" + c_name(group.name) + "_g" + std::to_string(group.id);
  kernel.block = 32;
  kernel.grid = 1;
  kernel.config = LaunchConfig{32, 1, 1};
  kernel.summary = "rng seeds " + std::to_string(count) + " x i64";
  kernel.params.push_back({node, "i64", true, 0});
  const std::string param = "p_" + c_name(n.name);
  std::string src = "// fxscope: " + where + "\n// " + kernel.summary +
                    ", derived on the host from the run's seed " + std::to_string(run_seed) +
                    "\n// params: " + n.name + " (written)\nextern \"C\" __global__ void " +
                    kernel.entry + "(long long* __restrict__ " + param +
                    ") {\n  if (blockIdx.x != 0 || threadIdx.x != 0) return;\n";
  const std::vector<std::int64_t> seeds = rng_seed_values(run_seed, ordinal, count);
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    src += "  " + param + "[" + std::to_string(i) + "] = " + std::to_string(seeds[i]) + "LL;\n";
  }
  kernel.source = src + "}\n";
  return kernel;
}

}  // namespace fxscope::codegen
