#include "run/backward_run.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/training_pair.h"
#include "run/f32_reference_run.h"
#include "run/mode_measure.h"
#include "run/step_digests.h"

namespace fxscope::gpu {
namespace {

// The backward's inputs: each saved tensor the forward output's elements, in the backward's
// layout (when its storage has the size the backward expects), each tangent seeded random
// values of its meta.
std::vector<std::vector<std::byte>> backward_inputs(const BackwardSetup& s,
                                                    const TrainingPair& pair,
                                                    std::vector<std::string>& notes) {
  const graph::Graph& g = s.backward->post_grad;
  const auto ids = graph_inputs(g);
  const auto saved = [&](std::size_t i,
                         const graph::TensorMeta& meta) -> std::optional<std::vector<std::byte>> {
    const auto from = pair.forward_output_of[i];
    if (!from || *from >= s.forward_outputs->size()) return std::nullopt;
    const std::size_t bytes = storage_bytes(meta, s.hints);
    const HostOutput& out = (*s.forward_outputs)[*from];
    if (auto moved = relaid_as(out, meta, s.hints)) return moved;
    if (out.bytes.size() == bytes) return out.bytes;
    notes.push_back(s.mode + " backward: " + g.node(ids[i]).name + " takes " +
                    std::to_string(bytes) + " bytes, the forward saved " +
                    std::to_string(out.bytes.size()) + ": random values instead");
    return std::nullopt;
  };
  const auto bound = [&](std::size_t i) { return index_bound(g, ids[i], s.hints); };
  return seeded_inputs(g, s.hints, s.seed * 1000003ull + 2, bound, saved);
}

}  // namespace

BackwardResult run_backward(const BackwardSetup& s, const EngineCompiler& compiler,
                            cudaStream_t stream, CuptiActivity* tagger,
                            const std::function<void(const std::string&)>& say) {
  BackwardResult r;
  EngineMode& em = r.mode;
  em.measured.mode = s.mode;
  em.cuda_graph = s.cuda_graph && s.backward->ours.cuda_graphs.usable;
  const graph::Graph& g = s.backward->post_grad;
  const TrainingPair pair = pair_training_graphs(s.forward->post_grad, g, s.hints);
  for (const auto& u : pair.unmatched) r.notes.push_back(s.mode + " backward: " + u);
  const bool tune = s.mode == "max-autotune";
  PlannedSteps steps = plan_steps(g, s.backward->ours, s.hints, tune, s.seed, s.clusters);
  em.coverage.ops = steps.ops;
  const auto inputs = backward_inputs(s, pair, r.notes);
  say(s.mode + " backward: compiling " + std::to_string(steps.steps.size()) + " steps");
  compiler.precompile(kernel_sources(steps),
                      [&](const std::string& line) { say(s.mode + " backward: " + line); });
  ExecutableOptions eo;
  eo.hints = s.hints;
  eo.tune = tune;
  eo.progress = [&](const std::string& line) { say(s.mode + " backward: " + line); };
  eo.compile = [&](const std::string& source, const std::string& where) {
    return compiler.compile(source, where);
  };
  auto exe = Executable::build(g, std::move(steps), inputs, eo, stream);
  if (!exe) {
    em.error = exe.error().message;
    return r;
  }
  em.peak_bytes = (*exe)->peak_bytes();
  em.unplanned_bytes = (*exe)->unplanned_bytes();
  em.coverage.ran = (*exe)->planned().ran_ops;
  for (const auto& skip : (*exe)->planned().skipped) em.coverage.missing.push_back(skip.why);
  StepDigests digests(**exe, g, s.hints);
  if (std::string err = (*exe)->launch(stream, nullptr, true, std::ref(digests)); !err.empty()) {
    em.error = err;
    return r;
  }
  em.values = digests.take();
  if (auto out = (*exe)->read_outputs(stream)) {
    mark_not_run(*out, g, s.backward->ours, (*exe)->planned().skipped);
    r.outputs = std::move(*out);
  }
  if (s.mode == "eager" && em.coverage.missing.empty()) {
    auto wide =
        run_f32_reference(*s.backward, inputs, s.hints, s.seed, s.clusters, compiler, stream,
                          [&](const std::string& m) { say("eager backward: " + m); });
    if (wide) {
      r.reference = std::move(*wide);
    } else {
      r.notes.push_back("eager backward: " + wide.error().message);
    }
  }
  say(s.mode + " backward: timing " + std::to_string(s.repeats) + " repeats");
  MeasureOptions mo;
  mo.warmup = s.warmup;
  mo.repeats = s.repeats;
  mo.cuda_graph = em.cuda_graph;
  if (std::string err = measure_mode(**exe, g, stream, tagger, mo, em); !err.empty()) {
    em.error = err;
  } else {
    em.ran = true;
  }
  em.picks = (*exe)->picks();
  r.loaded = std::move(*exe);
  return r;
}

}  // namespace fxscope::gpu
