#include "run/f32_reference_run.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/step_plan.h"
#include "fxscope/ops/op_cost.h"
#include "fxscope/ops/op_registry.h"
#include "runtime/executable.h"

namespace fxscope::gpu {
namespace {

bool low_precision(std::string_view dtype) {
  return dtype == "bf16" || dtype == "f16";
}

// Ops whose values depend on their dtype beyond rounding: random numbers drawn in it (a dropout
// compares them with p), and views that read the bits as another dtype.
bool keeps_dtype(std::string_view base) {
  return base == "rand" || base == "rand_like" || base == "randn" || base == "randn_like" ||
         base == "randint" || base == "bernoulli" || base == "inductor_random" ||
         base == "native_dropout";
}

bool reinterprets(const graph::Node& n) {
  return n.target == "aten.view.dtype" || ops::op_base_name(n.target) == "view_of_dtype";
}

}  // namespace

std::optional<graph::Graph> widened_to_f32(const graph::Graph& graph) {
  graph::Graph out = graph;
  bool widened = false;
  for (graph::NodeId i = 0; i < out.size(); ++i) {
    graph::Node& n = out.node(i);
    if (reinterprets(n)) return std::nullopt;
    if (!n.meta || !low_precision(n.meta->dtype)) continue;
    if (n.is_op() && keeps_dtype(ops::op_base_name(n.target))) continue;
    n.meta->dtype = "f32";
    widened = true;
  }
  if (!widened) return std::nullopt;
  return out;
}

std::vector<std::vector<std::byte>> widened_inputs(const graph::Graph& graph,
                                                   std::vector<std::vector<std::byte>> inputs) {
  const std::vector<graph::NodeId> ids = graph_inputs(graph);
  for (std::size_t k = 0; k < ids.size() && k < inputs.size(); ++k) {
    const auto& meta = graph.node(ids[k]).meta;
    if (!meta || !low_precision(meta->dtype)) continue;
    const std::vector<std::byte>& narrow = inputs[k];
    const std::size_t count = narrow.size() / element_bytes(meta->dtype);
    std::vector<std::byte> wide(count * sizeof(float));
    for (std::size_t e = 0; e < count; ++e) {
      const auto v = static_cast<float>(
          read_element(meta->dtype, narrow.data(), static_cast<std::int64_t>(e)));
      std::memcpy(wide.data() + e * sizeof(float), &v, sizeof(float));
    }
    inputs[k] = std::move(wide);
  }
  return inputs;
}

Result<std::vector<HostOutput>> run_f32_reference(
    const fusion::GraphFusion& eager, const std::vector<std::vector<std::byte>>& inputs,
    const ops::SymbolHints& hints, std::uint64_t seed, bool clusters,
    const EngineCompiler& compiler, cudaStream_t stream,
    const std::function<void(const std::string&)>& say) {
  auto wide = widened_to_f32(eager.post_grad);
  if (!wide) return std::vector<HostOutput>{};
  say("running its graph in f32, the yardstick of the low-precision modes");
  fusion::GraphFusion f;
  f.post_grad = std::move(*wide);
  f.hints = eager.hints;
  f = planned_as_eager(std::move(f));
  PlannedSteps steps = plan_steps(f.post_grad, f.ours, hints, false, seed, clusters);
  if (!steps.skipped.empty()) {
    return make_error("the f32 reference skips " + steps.skipped.front().why);
  }
  ExecutableOptions eo;
  eo.hints = hints;
  eo.compile = [&](const std::string& source, const std::string& where) {
    return compiler.compile(source, where);
  };
  compiler.precompile(kernel_sources(steps));
  auto exe = Executable::build(f.post_grad, std::move(steps),
                               widened_inputs(eager.post_grad, inputs), eo, stream);
  if (!exe) return make_error("the f32 reference: " + exe.error().message);
  if (std::string err = (*exe)->launch(stream, nullptr, true); !err.empty()) {
    return make_error("the f32 reference: " + err);
  }
  return (*exe)->read_outputs(stream);
}

double same_multiplier(const graph::TensorMeta& result, const ops::SymbolHints& hints,
                       double tolerance) {
  // torch._dynamo.utils.same: 3 rather than 2 for an AMP result (bf16, f16), and where noise
  // dominates its metric: a tensor of under 1,000 elements, a 1x1 convolution's (4-d, its last
  // two sizes 1), a tolerance of 0.02 or more.
  if (low_precision(result.dtype) || tolerance >= 0.02) return 3.0;
  std::vector<std::int64_t> sizes;
  std::int64_t numel = 1;
  for (const auto& d : result.sizes) numel *= sizes.emplace_back(ops::eval_dim(d, hints));
  const bool one_by_one = sizes.size() == 4 && sizes[2] == 1 && sizes[3] == 1;
  return numel < 1000 || one_by_one ? 3.0 : 2.0;
}

bool near_as_eager_to_reference(const HostOutput& expected, const HostOutput& actual,
                                const HostOutput& reference, double tolerance,
                                const ops::SymbolHints& hints, double& distance,
                                double& eager_distance) {
  const HostView ref{&reference.meta, reference.bytes.data()};
  // torch._dynamo.utils.same: root-mean-square distances to the higher-precision run, which a
  // few elements rounded apart move less than they move the largest difference, plus tol / 10.
  distance = rms_difference(ref, {&actual.meta, actual.bytes.data()}, hints);
  eager_distance = rms_difference(ref, {&expected.meta, expected.bytes.data()}, hints);
  return distance <=
         same_multiplier(actual.meta, hints, tolerance) * eager_distance + tolerance / 10.0;
}

}  // namespace fxscope::gpu
