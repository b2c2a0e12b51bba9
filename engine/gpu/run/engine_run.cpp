#include "fxscope/gpu/engine_run.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

#include "cudnn/cudnn_conv.h"
#include "cupti/cupti_activity.h"
#include "fxscope/fusion/unit_fusion.h"
#include "fxscope/gpu/engine_compiler.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/isolated_run.h"
#include "fxscope/gpu/output_compare.h"
#include "fxscope/gpu/random_inputs.h"
#include "fxscope/gpu/run_unit.h"
#include "fxscope/gpu/training_pair.h"
#include "fxscope/gpu/unbacked_sizes.h"
#include "fxscope/ops/alu_cost.h"
#include "fxscope/trace/trace_log.h"
#include "gemm/cublaslt_api.h"
#include "kernels/copy_in_place.h"
#include "kernels/nvrtc_api.h"
#include "kernels/reference_kernels.h"
#include "run/backward_run.h"
#include "run/engine_modes.h"
#include "run/f32_reference_run.h"
#include "run/gpu_timing.h"
#include "run/mode_measure.h"
#include "run/planted_fault.h"
#include "run/step_digests.h"
#include "runtime/cuda_device.h"
#include "runtime/cuda_status.h"
#include "runtime/executable.h"

namespace fxscope::gpu {
namespace {

const trace::CompileUnit* find_unit(const trace::TraceLog& log, const std::string& id) {
  if (id.empty()) return default_run_unit(log);
  for (const auto& u : log.units()) {
    if (u.id.without_attempt().str() == id) return &u;
  }
  return nullptr;
}

// The same seeded bytes for an input of every graph of the unit (ALL, eager's last): the place it
// holds among eager's inputs (eager takes a frozen parameter as an argument where a compiled
// graph reads it as a constant) seeds it; an integer input's range is the tightest any graph
// indexes with it.
std::vector<std::vector<std::byte>> make_inputs(const graph::Graph& g,
                                                const std::vector<const graph::Graph*>& all,
                                                const ops::SymbolHints& hints, std::uint64_t seed) {
  // Eager's graph is the last of ALL where it is there.
  const graph::Graph* reference = all.empty() ? &g : all.back();
  const std::vector<std::size_t> slots = input_slots(g, *reference);
  // Each place's tightest index bound over every graph, found once.
  std::map<std::size_t, std::int64_t> tightest;
  for (const graph::Graph* other : all) {
    const auto other_ids = graph_inputs(*other);
    const std::vector<std::size_t> other_slots = input_slots(*other, *reference);
    for (std::size_t k = 0; k < other_ids.size(); ++k) {
      if (const auto b = index_bound(*other, other_ids[k], hints)) {
        const auto [it, fresh] = tightest.emplace(other_slots[k], *b);
        if (!fresh) it->second = std::min(it->second, *b);
      }
    }
  }
  const auto bound = [&](std::size_t i) -> std::optional<std::int64_t> {
    const auto it = tightest.find(slots[i]);
    if (it == tightest.end()) return std::nullopt;
    return it->second;
  };
  const std::uint64_t base = seed * 1000003ull + 1;
  return seeded_inputs(g, hints, base, bound, [&](std::size_t i, const graph::TensorMeta& meta) {
    return std::optional(random_tensor(meta, hints, base + slots[i] * 7919ull, bound(i)));
  });
}

// Achieved bandwidth of the generated kernels (not GEMMs, convolutions or gathers), against the
// copy bandwidth, and the issue slots each needs. The bytes are those of the kernel's own buffers
// (codegen::kernel_bytes), not the plan's, which follow Inductor's: the plan has ResNet-50's stem
// batch norm + max-pool read the ReLU's buffer, where the kernel reads the convolution's output
// and recomputes the ReLU.
void add_bandwidth(EngineMode& em, const Executable& exe, const graph::Graph& graph,
                   const fusion::FusionPlan& plan, const ops::SymbolHints& hints, double copy_gbps,
                   double alu_slots_per_us) {
  for (const report::RunKernel& k : em.measured.kernels) {
    const auto step = std::find_if(exe.steps().begin(), exe.steps().end(), [&](const StepPlan& s) {
      // A kernel shared by twins (EngineCompiler) is told apart by the group it ran for.
      return s.kind == StepKind::generated && s.name == k.name && s.group_name == k.group;
    });
    if (step == exe.steps().end() || k.us <= 0) continue;
    const fusion::KernelGroup& g = plan.groups[step->group];
    if (g.kind == fusion::GroupKind::template_gemm || g.kind == fusion::GroupKind::extern_kernel) {
      continue;
    }
    // A gather reads a few rows of its table, but the plan counts the whole table.
    if (indexes_by_data(*step, graph)) continue;
    KernelBandwidth b;
    b.name = k.name;
    b.group = step->group_name;
    b.step = static_cast<std::size_t>(step - exe.steps().begin());
    b.bytes = codegen::kernel_bytes(step->variants.front(), graph, hints);
    // The median call, not the mean: the target judges the kernel, not a call's stray delay.
    b.us = (k.median_us > 0 ? k.median_us : k.us) / std::max(k.calls, 1.0);
    b.gbps = b.bytes / b.us / 1e3;
    b.share_of_copy = copy_gbps > 0 ? b.gbps / copy_gbps : 0.0;
    b.alu_us = alu_slots_per_us > 0 ? g.alu_slots / alu_slots_per_us : 0;
    b.share_of_issue_rate = b.alu_us / b.us;
    em.bandwidth.push_back(b);
  }
}

// Each kernel against copies of its own size (by bytes moved; the target judges the copy kernel's
// in the kernel's place, IN_PLACE, or alone, COPY_KERNEL_US, where it could not be timed there):
// which are held to the target and which meet it. A fused chain of full-precision math can take
// longer to issue than its bytes take to move at the target: such a kernel is compute-bound,
// reported, not held.
void judge_bandwidth(EngineMode& em, const std::map<std::uint64_t, double>& copy_us,
                     const std::map<std::uint64_t, double>& copy_kernel_us,
                     const std::map<std::size_t, InPlaceCopy>& in_place, double copy_gbps) {
  for (KernelBandwidth& b : em.bandwidth) {
    const auto it = copy_us.find(static_cast<std::uint64_t>(b.bytes));
    b.same_size_copy_us = it == copy_us.end() ? 0.0 : it->second;
    b.share_of_same_size_copy = b.same_size_copy_us > 0 ? b.same_size_copy_us / b.us : 0.0;
    const auto kt = copy_kernel_us.find(static_cast<std::uint64_t>(b.bytes));
    b.alone_copy_kernel_us = kt == copy_kernel_us.end() ? 0.0 : kt->second;
    b.same_size_copy_kernel_us = b.alone_copy_kernel_us;
    b.reference_place = "alone";
    if (const auto pt = in_place.find(b.step); pt != in_place.end()) {
      b.reference_place = pt->second.place;
      if (pt->second.us > 0) b.same_size_copy_kernel_us = pt->second.us;
    }
    b.share_of_same_size_copy_kernel =
        b.same_size_copy_kernel_us > 0 ? b.same_size_copy_kernel_us / b.us : 0.0;
    const double reference_gbps =
        b.same_size_copy_kernel_us > 0 ? b.bytes / b.same_size_copy_kernel_us / 1e3 : copy_gbps;
    b.compute_bound = ops::compute_bound(b.alu_us, b.bytes, reference_gbps);
    b.held_to_target =
        b.same_size_copy_kernel_us > 0 && !b.compute_bound && b.bytes >= kBandwidthMinBytes;
    b.meets_target = b.held_to_target && b.share_of_same_size_copy_kernel >= kBandwidthTarget;
  }
}

// One line per mode: which generated kernels are held to the bandwidth target, and how each fares.
std::string bandwidth_verdict(const std::string& mode, const EngineMode& em) {
  char head[200];
  std::snprintf(head, sizeof head,
                "%s: bandwidth target %.0f%% of a same-size copy kernel timed in the kernel's "
                "place, for kernels moving >= %.1f MB:",
                mode.c_str(), kBandwidthTarget * 100, kBandwidthMinBytes / 1e6);
  std::string line = head;
  std::size_t held = 0;
  std::size_t met = 0;
  std::size_t compute_bound = 0;
  std::string below;
  for (const KernelBandwidth& b : em.bandwidth) {
    if (b.compute_bound && b.bytes >= kBandwidthMinBytes) {
      char k[160];
      std::snprintf(k, sizeof k,
                    " %.1f MB %.1f us compute-bound (%.1f us of instructions, %.0f%% of the issue "
                    "rate);",
                    b.bytes / 1e6, b.us, b.alu_us, b.share_of_issue_rate * 100);
      line += " " + b.name + k;
      ++compute_bound;
    }
    if (!b.held_to_target) continue;
    ++held;
    if (b.meets_target) {
      ++met;
      continue;
    }
    // Names and the place are appended, not formatted into a buffer: group names can be long.
    char figures[128];
    std::snprintf(figures, sizeof figures, " %.1f MB %.1f us, %.0f%% of a %.2f us copy kernel ",
                  b.bytes / 1e6, b.us, b.share_of_same_size_copy_kernel * 100,
                  b.same_size_copy_kernel_us);
    char alone[48];
    std::snprintf(alone, sizeof alone, " (%.2f us alone): below;", b.alone_copy_kernel_us);
    below += " " + b.name + figures + b.reference_place + alone;
  }
  line += below;
  const std::size_t small = em.bandwidth.size() - held - compute_bound;
  line += " " + std::to_string(met) + " of " + std::to_string(held) + " held kernels meet it";
  if (compute_bound) line += ", " + std::to_string(compute_bound) + " compute-bound";
  if (small) line += ", " + std::to_string(small) + " smaller or unmeasured not judged";
  return line;
}

// Each output of ACTUAL against EXPECTED's (eager's), a sum's error against the magnitude of its
// terms where EAGER_VALUES (eager's digests) hold it.
void compare(EngineMode& em, const std::vector<HostOutput>& expected,
             const std::vector<HostOutput>& actual, const std::vector<ValueDigest>& eager_values,
             const ops::SymbolHints& hints, const std::vector<HostOutput>& reference) {
  if (expected.size() != actual.size()) {
    em.error += (em.error.empty() ? "" : "; ") + std::string("outputs: eager has ") +
                std::to_string(expected.size()) + ", this mode " + std::to_string(actual.size());
    return;
  }
  // A sum's terms' magnitude per element, by the node holding it (a digest's last write wins).
  std::map<std::string, double> magnitude;
  for (const ValueDigest& v : eager_values) {
    if (v.numel > 0) magnitude[v.node] = v.terms_abs_sum / static_cast<double>(v.numel);
  }
  double worst = 0.0;
  std::size_t compared = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!expected[i].not_run.empty() || !actual[i].not_run.empty()) {
      if (em.outputs_not_compared++ == 0) {
        em.not_compared_in_eager = !expected[i].not_run.empty();
        em.not_compared_why = em.not_compared_in_eager ? expected[i].not_run : actual[i].not_run;
      }
      continue;
    }
    if (expected[i].bytes.empty() || actual[i].bytes.empty()) continue;
    ++compared;
    const auto m = magnitude.find(expected[i].node);
    const double e = relative_error({&expected[i].meta, expected[i].bytes.data()},
                                    {&actual[i].meta, actual[i].bytes.data()}, hints,
                                    m == magnitude.end() ? 0.0 : m->second);
    em.rel_errs.push_back(e);
    worst = std::max(worst, e);
    // Either side's path sets it: eager's graph and the fused one compute in the same dtypes.
    const double tol = std::max(output_tolerance(expected[i]), output_tolerance(actual[i]));
    em.tolerance = std::max(em.tolerance, tol);
    if (e <= tol) continue;
    double distance = 0;
    double eager_distance = 0;
    if (reference.size() == expected.size() && !reference[i].bytes.empty() &&
        near_as_eager_to_reference(expected[i], actual[i], reference[i], tol, hints, distance,
                                   eager_distance)) {
      ++em.near_reference;
      if (distance >= em.reference_distance) {
        em.reference_distance = distance;
        em.eager_reference_distance = eager_distance;
      }
      continue;
    }
    em.flagged = true;
  }
  if (compared > 0) em.max_rel_err = worst;
}

// Whether eager ran every group: only then are its outputs values to feed another mode with.
bool complete(const EngineMode& m) {
  return m.ran && m.coverage.missing.empty();
}

// Eager's forward outputs for the backward of mode MI: those of an eager mode this process ran
// completely before it (DONE: the modes run so far), else those in OPTIONS.eager_result (read
// once into FROM_FILE); nullptr when neither is there (the backward is then fed its own forward).
const std::vector<HostOutput>* eager_forward_outputs(
    const std::vector<EngineMode>& done, const std::vector<std::vector<HostOutput>>& outputs,
    std::size_t mi, const EngineRunOptions& options, std::vector<HostOutput>& from_file) {
  if (mi < done.size() && done[mi].measured.mode == "eager") return nullptr;
  for (std::size_t k = 0; k < done.size() && k < mi; ++k) {
    if (done[k].measured.mode == "eager" && complete(done[k]) && !outputs[k].empty()) {
      return &outputs[k];
    }
  }
  if (options.eager_result.empty()) return nullptr;
  if (from_file.empty()) {
    auto r = read_mode_result(options.eager_result);
    if (!r || r->outputs.size() != 1 || r->run.modes.size() != 1 ||
        !complete(r->run.modes.front())) {
      return nullptr;
    }
    from_file = std::move(r->outputs.front());
  }
  return from_file.empty() ? nullptr : &from_file;
}

bool has_nan(const std::vector<HostOutput>& outputs) {
  for (const HostOutput& o : outputs) {
    if (!is_floating(o.meta.dtype)) continue;
    const auto n = static_cast<std::int64_t>(o.bytes.size() / element_bytes(o.meta.dtype));
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(read_element(o.meta.dtype, o.bytes.data(), i))) return true;
    }
  }
  return false;
}

// NVRTC and cuBLASLt, which every engine run needs, are loaded before the device opens: a
// machine without them is told which to install, whether or not it has a GPU. (Without CUPTI a
// run still measures each mode, with no per-kernel times: a note says so.)
std::optional<Error> missing_run_libraries() {
  std::string missing;
  if (auto nvrtc = nvrtc_api(); !nvrtc) missing = nvrtc.error().message;
  if (auto lt = cublaslt_api(); !lt) {
    missing += (missing.empty() ? "" : "; ") + lt.error().message;
  }
  if (missing.empty()) return std::nullopt;
  return make_error("the GPU run needs NVIDIA's CUDA libraries: " + missing);
}

// HINTS with the sizes the data sets in graph G (nonzero's counts, a slice an .item() ends)
// bound to what this mode computes: a first build with each unbound count at its upper bound
// runs step by step on INPUTS, and each nonzero's rows found are read back from its output (the
// kernel stores -1 past the count), each slice's length from the value its .item() reads. Kernels
// take sizes as constants, so the mode's build then uses the counts. Repeated while a count changes
// (a nonzero whose input an earlier count sized, computed at the bound the first time), at most
// once a count more. Each build goes into KEEP: CUPTI names kernels by their function handle, which
// an unloaded module's would hand to the next one's.
Result<ops::SymbolHints> bind_counts(const graph::Graph& g, const fusion::FusionPlan& plan,
                                     const ops::SymbolHints& hints,
                                     const std::vector<std::vector<std::byte>>& inputs,
                                     std::uint64_t seed, bool clusters,
                                     const EngineCompiler& compiler, cudaStream_t stream,
                                     std::vector<std::unique_ptr<Executable>>& keep) {
  const std::vector<UnboundCount> counts = unbound_counts(g, hints);
  ops::SymbolHints bound = with_upper_bounds(g, hints);
  for (std::size_t pass = 0; pass <= counts.size(); ++pass) {
    PlannedSteps steps = plan_steps(g, plan, bound, false, seed, clusters);
    ExecutableOptions eo;
    eo.hints = bound;
    eo.compile = [&](const std::string& source, const std::string& where) {
      return compiler.compile(source, where);
    };
    auto exe = Executable::build(g, std::move(steps), inputs, eo, stream);
    if (!exe) return make_error("finding the sizes the data sets: " + exe.error().message);
    ops::SymbolHints found = hints;
    const auto read_counts = [&](std::size_t i) {
      for (const graph::NodeId w : (*exe)->planned().steps[i].writes) {
        for (const UnboundCount& c : counts) {
          if (c.node != w) continue;
          if (const auto bytes = (*exe)->read_value(w)) {
            for (auto& [symbol, value] : counts_found(c, *g.node(w).meta, *bytes, bound)) {
              found[symbol] = value;
            }
          }
        }
      }
    };
    const std::string err = (*exe)->launch(stream, nullptr, true, read_counts);
    keep.push_back(std::move(*exe));
    if (!err.empty()) return make_error("finding the sizes the data sets: " + err);
    for (const UnboundCount& c : counts) {
      if (!found.count(c.symbol)) {
        return make_error("finding the sizes the data sets: " + g.node(c.node).name +
                          " did not run, so " + c.symbol + " is not known");
      }
    }
    if (found == bound) return found;
    bound = std::move(found);
  }
  return bound;
}

}  // namespace

std::vector<std::string> selected_modes(const std::string& mode) {
  const std::vector<std::string> all = {"eager", "default", "reduce-overhead", "max-autotune"};
  if (mode == "all") return all;
  std::vector<std::string> out;
  for (const std::string& m : all) {
    if (("," + mode + ",").find("," + m + ",") != std::string::npos) out.push_back(m);
  }
  return out;
}

Result<UnitOfRun> find_run_unit(const EngineRunOptions& o) {
  auto log = trace::read_trace(o.log_path);
  if (!log) return log.error();
  UnitOfRun u;
  u.log = std::make_unique<trace::TraceLog>(std::move(*log));
  u.unit = find_unit(*u.log, o.unit);
  if (!u.unit) {
    return make_error(
        u.log->path() + ": " +
        (o.unit.empty() ? "no compile unit has an ATen graph" : "no compile unit " + o.unit));
  }
  u.hints = unit_hints(*u.unit);
  return u;
}

Result<ModesRun> run_modes(const EngineRunOptions& o) {
  const auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  auto found = find_run_unit(o);
  if (!found) return found.error();
  const trace::TraceLog* log = found->log.get();
  const trace::CompileUnit* unit = found->unit;
  const ops::SymbolHints& hints = found->hints;
  const std::vector<std::string> modes = selected_modes(o.mode);
  if (modes.empty()) {
    return make_error("--mode " + o.mode +
                      ": expected eager, default, reduce-overhead, "
                      "max-autotune, a comma-separated list of them, or all");
  }
  // Plans first: they need no GPU, and an unusable unit is reported before the device opens.
  std::vector<fusion::GraphFusion> graphs;
  std::vector<std::optional<fusion::GraphFusion>> backwards;  // per mode; empty for inference
  std::string eager_note;
  for (const std::string& name : modes) {
    auto f = name == "eager" ? std::vector<fusion::GraphFusion>{eager_reference(*unit, eager_note)}
                             : fusion::fuse_unit(*unit, *fusion::parse_mode(name));
    if (f.empty() || f.front().post_grad.empty()) {
      return make_error(log->path() + ": unit " + unit->id.str() + " has no ATen graph to run");
    }
    graphs.push_back(std::move(f.front()));
    if (name == "eager" && !eager_note.empty()) {
      // Eager's forward is the post-grad graph: so is its backward, whose inputs it saves.
      auto backward = backward_fusion(*unit, fusion::Mode::default_mode);
      if (backward) backward = planned_as_eager(std::move(*backward));
      backwards.push_back(std::move(backward));
    } else {
      backwards.push_back(backward_fusion(*unit, *fusion::parse_mode(name)));
    }
  }
  if (auto missing = missing_run_libraries()) return *missing;
  auto device = open_cuda_device();
  if (!device) return device.error();
  ModesRun result;
  result.hints = hints;
  EngineRun& run = result.run;
  run.device = device->name;
  run.unit = unit->id.without_attempt().str();
  const auto version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  run.cuda_version =
      version(device->runtime_version) + " (driver " + version(device->driver_version) + ")";
  run.cudnn = cudnn_location();
  if (!eager_note.empty()) run.notes.push_back(eager_note);
  say("device " + run.device + " (" + device->arch() + "), " +
      (o.unit.empty() ? default_unit_line(*unit) : "unit " + run.unit));
  cudaStream_t stream = nullptr;
  if (const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      e != cudaSuccess) {
    return make_error("cannot create a CUDA stream: " + cuda_text(e));
  }
  run.copy_gbps = measure_copy_gbps(stream);
  run.alu_slots_per_us = ops::alu_slots_per_us(device->sms, device->clock_khz);
  auto cupti = CuptiActivity::start();
  if (!cupti) run.notes.push_back("no per-kernel times: " + cupti.error().message);
  CuptiActivity* tagger = cupti ? cupti->get() : nullptr;
  const EngineCompiler compiler(device->arch(), o.cache_dir);
  auto reference = ReferenceKernels::load(compiler);
  if (!reference) {
    run.notes.push_back("no reference copy kernel: " + reference.error().message);
  } else {
    run.empty_kernel_us = measure_empty_kernel_us(stream, tagger, *reference);
  }

  // Every mode's inputs are seeded by their places among eager's, the graph with them all, even
  // where this process runs no eager (each mode runs in a process of its own).
  std::vector<const graph::Graph*> all;
  for (const auto& f : graphs) all.push_back(&f.post_grad);
  const auto eager_mode = std::find(modes.begin(), modes.end(), "eager");
  std::string unused_note;
  const fusion::GraphFusion eager_graph =
      eager_mode == modes.end() ? eager_reference(*unit, unused_note) : fusion::GraphFusion{};
  if (eager_mode != modes.end()) {
    all.push_back(all[static_cast<std::size_t>(eager_mode - modes.begin())]);
  } else {
    all.push_back(eager_graph.post_grad.empty() ? all.front() : &eager_graph.post_grad);
  }
  std::vector<std::vector<HostOutput>>& outputs = result.outputs;
  outputs.resize(modes.size());
  // Every mode's kernels stay loaded to the end: CUPTI names kernels by their function handle,
  // and an unloaded module's handles are reused by the next one's.
  std::vector<std::unique_ptr<Executable>> executables(modes.size());
  std::vector<std::unique_ptr<Executable>> backward_executables;
  std::vector<std::unique_ptr<Executable>> sizing_executables;  // the runs that found counts
  std::vector<HostOutput> eager_file_outputs;      // eager's forward outputs from its result file
  std::map<std::uint64_t, double> copy_us;         // same-size copies, by bytes moved
  std::map<std::uint64_t, double> copy_kernel_us;  // the same made by the reference kernel
  for (std::size_t mi = 0; mi < modes.size(); ++mi) {
    const std::string& name = modes[mi];
    const fusion::GraphFusion& f = graphs[mi];
    EngineMode em;
    em.measured.mode = name;
    em.cuda_graph = name == "reduce-overhead" || name == "max-autotune";
    // Sizes the data sets (nonzero's counts, slices an .item() ends) bound to this mode's values
    // before it is planned.
    ops::SymbolHints mode_hints = hints;
    if (const auto counts = unbound_counts(f.post_grad, hints); !counts.empty()) {
      say(name + ": running once to find the sizes the data sets");
      auto bound =
          bind_counts(f.post_grad, f.ours, hints, make_inputs(f.post_grad, all, hints, o.seed),
                      o.seed, device->major >= 9, compiler, stream, sizing_executables);
      if (bound) {
        mode_hints = std::move(*bound);
        // A slice's length sizes the kernels around it (a reduction over the slice): the mode is
        // planned again at the sizes found, as Inductor's kernels take them at run time.
        if (std::any_of(counts.begin(), counts.end(),
                        [](const UnboundCount& c) { return c.slice.has_value(); })) {
          fusion::PlanOptions po;
          po.hints = mode_hints;
          graphs[mi].ours =
              fusion::plan(f.post_grad, *fusion::parse_mode(name), fusion::plan_options(*unit, po));
        }
      } else {
        run.notes.push_back(name + ": " + bound.error().message);
      }
    }
    say(name + ": planning " + std::to_string(f.ours.groups.size()) + " groups");
    PlannedSteps steps = plan_steps(f.post_grad, f.ours, mode_hints, name == "max-autotune", o.seed,
                                    device->major >= 9);
    for (const auto& gap : steps.read_before_write) run.notes.push_back(name + ": " + gap);
    if (const std::string planted = plant_fault_if_asked(name, steps); !planted.empty()) {
      run.notes.push_back(name + ": a fault is planted in group " + planted + " (" +
                          kPlantFaultVariable + ")");
    }
    em.coverage.ops = steps.ops;
    em.coverage.ran = steps.ran_ops;
    for (const auto& s : steps.skipped) em.coverage.missing.push_back(s.why);
    // Eager's values from tensor constants the log does not record: no reference to compare with.
    const std::string unrecorded =
        name == "eager" ? unrecorded_constants(f.post_grad, *unit) : std::string();
    if (!unrecorded.empty()) em.coverage.missing.push_back(unrecorded);
    if (em.cuda_graph && !f.ours.cuda_graphs.usable) {
      em.cuda_graph = false;
      for (const auto& r : f.ours.cuda_graphs.reasons)
        run.notes.push_back(name + ": no CUDA graph: " + r);
    }
    ExecutableOptions eo;
    eo.hints = mode_hints;
    eo.tune = name == "max-autotune";
    eo.progress = [&](const std::string& s) { say(name + ": " + s); };
    eo.compile = [&](const std::string& source, const std::string& where) {
      return compiler.compile(source, where);
    };
    const auto inputs = make_inputs(f.post_grad, all, mode_hints, o.seed);
    say(name + ": compiling " + std::to_string(steps.steps.size()) + " steps");
    compiler.precompile(kernel_sources(steps), [&](const std::string& s) { say(name + ": " + s); });
    // max-autotune's choices timed as the run times the model's kernels (gpu_timing.h).
    const KernelClock clock(eo.tune ? tagger : nullptr);
    auto exe = Executable::build(f.post_grad, std::move(steps), inputs, eo, stream);
    if (!exe) {
      em.error = exe.error().message;
      say(name + ": " + em.error);
      run.modes.push_back(std::move(em));
      if (o.mode_done) o.mode_done(run, outputs[mi], {});
      continue;
    }
    em.peak_bytes = (*exe)->peak_bytes();
    em.unplanned_bytes = (*exe)->unplanned_bytes();
    // Coverage after build: groups that could not be sized, compiled or set up were dropped.
    em.coverage.ran = (*exe)->planned().ran_ops;
    em.coverage.missing.clear();
    for (const auto& s : (*exe)->planned().skipped) em.coverage.missing.push_back(s.why);
    if (!unrecorded.empty()) em.coverage.missing.push_back(unrecorded);
    StepDigests digests(**exe, f.post_grad, mode_hints);
    if (std::string err = (*exe)->launch(stream, nullptr, true, std::ref(digests)); !err.empty()) {
      em.error = err;
      say(name + ": " + err);
      run.modes.push_back(std::move(em));
      if (o.mode_done) o.mode_done(run, outputs[mi], {});
      continue;
    }
    em.values = digests.take();
    auto out = (*exe)->read_outputs(stream);
    if (out) {
      mark_not_run(*out, f.post_grad, f.ours, (*exe)->planned().skipped);
      // The sizes the data set are bound in this mode's run only: its outputs carry them as
      // numbers, so that the comparison with eager (sized by the unit's hints) reads them whole.
      for (HostOutput& h : *out) bind_unbacked_dims(h.meta, mode_hints);
      // Random constants: none of eager's values is a reference.
      if (!unrecorded.empty()) {
        for (HostOutput& h : *out) h.not_run = unrecorded;
      }
      outputs[mi] = std::move(*out);
    }
    say(name + ": timing " + std::to_string(o.repeats) + " repeats");
    MeasureOptions mo;
    mo.warmup = o.warmup;
    mo.repeats = o.repeats;
    mo.cuda_graph = em.cuda_graph;
    if (std::string err = measure_mode(**exe, f.post_grad, stream, tagger, mo, em); !err.empty()) {
      em.error = err;
      say(name + ": " + err);
    } else {
      em.ran = true;
    }
    em.picks = (*exe)->picks();
    add_bandwidth(em, **exe, f.post_grad, f.ours, mode_hints, run.copy_gbps, run.alu_slots_per_us);
    if (em.ran && !em.bandwidth.empty()) {
      std::vector<double> sizes;
      for (const KernelBandwidth& b : em.bandwidth) {
        if (b.bytes >= kBandwidthMinBytes) sizes.push_back(b.bytes);
      }
      measure_copy_us(stream, tagger, sizes, run.copy_gbps, copy_us);
      std::map<std::size_t, InPlaceCopy> in_place;
      if (reference) {
        measure_copy_kernel_us(stream, tagger, *reference, sizes, copy_kernel_us);
        std::vector<KernelToPlace> held;
        for (const KernelBandwidth& b : em.bandwidth) {
          if (b.bytes >= kBandwidthMinBytes) held.push_back({b.step, b.bytes});
        }
        if (tagger) {
          say(name + ": timing " + std::to_string(held.size()) + " reference copies in place");
          in_place = measure_copies_in_place(**exe, f.post_grad, held, em.cuda_graph, stream,
                                             *tagger, *reference);
        }
      }
      judge_bandwidth(em, copy_us, copy_kernel_us, in_place, run.copy_gbps);
      run.notes.push_back(bandwidth_verdict(name, em));
    }
    // A NaN in the outputs: name the group that first wrote one.
    if (has_nan(outputs[mi])) {
      if (const std::string where = (*exe)->first_nonfinite(stream); !where.empty()) {
        run.notes.push_back(name + ": " + where);
      }
    }
    if (name == "eager" && em.ran && em.coverage.missing.empty()) {
      auto wide = run_f32_reference(f, inputs, mode_hints, o.seed, device->major >= 9, compiler,
                                    stream, [&](const std::string& s) { say("eager: " + s); });
      if (wide) {
        result.reference_outputs = std::move(*wide);
      } else {
        run.notes.push_back("eager: " + wide.error().message);
      }
    }
    const bool forward_ran = em.ran;
    executables[mi] = std::move(*exe);
    run.modes.push_back(std::move(em));
    if (backwards[mi] && forward_ran) {
      BackwardSetup b;
      b.mode = name;
      b.forward = &f;
      b.backward = &*backwards[mi];
      b.forward_outputs = &outputs[mi];
      if (const auto* eager =
              eager_forward_outputs(run.modes, outputs, mi, o, eager_file_outputs)) {
        b.forward_outputs = eager;
      }
      b.hints = hints;
      b.seed = o.seed;
      b.warmup = o.warmup;
      b.repeats = o.repeats;
      b.cuda_graph = run.modes.back().cuda_graph;
      b.clusters = device->major >= 9;
      BackwardResult r = run_backward(b, compiler, stream, tagger, say);
      if (!r.mode.error.empty()) say(name + " backward: " + r.mode.error);
      run.notes.insert(run.notes.end(), r.notes.begin(), r.notes.end());
      run.backward.push_back(std::move(r.mode));
      result.backward_outputs.push_back(std::move(r.outputs));
      if (!r.reference.empty()) result.backward_reference_outputs = std::move(r.reference);
      backward_executables.push_back(std::move(r.loaded));
    }
    if (o.mode_done) {
      o.mode_done(run, outputs[mi],
                  backwards[mi] && forward_ran ? result.backward_outputs.back()
                                               : std::vector<HostOutput>{});
    }
  }
  if (cupti) cupti->reset();
  cudaStreamDestroy(stream);
  return result;
}

namespace {

// What cleared the outputs outside the tolerance: PyTorch's accuracy rule against the f32 run.
std::string near_reference_note(const EngineMode& em) {
  char figures[512];
  std::snprintf(figures, sizeof figures,
                "%zu outputs beyond the tolerance of eager pass PyTorch's accuracy rule against an "
                "f32 run of its graph (torch._dynamo.utils.same: root-mean-square distance at most "
                "3x eager's for a bf16 or f16 result, a small one or a loose tolerance, else 2x, "
                "plus a tenth of the tolerance; largest %.3g, eager's %.3g): not flagged",
                em.near_reference, em.reference_distance, em.eager_reference_distance);
  return figures;
}

// Compares each mode of MODES with the one named eager; notes what was not compared, with LABEL
// ("" or " backward") after the mode's name.
void compare_modes(std::vector<EngineMode>& modes,
                   const std::vector<std::vector<HostOutput>>& outputs,
                   const ops::SymbolHints& hints, const std::string& label,
                   std::vector<std::string>& notes, const std::vector<HostOutput>& reference) {
  std::optional<std::size_t> eager_index;
  for (std::size_t mi = 0; mi < modes.size(); ++mi) {
    const EngineMode& em = modes[mi];
    if (em.measured.mode != "eager") continue;
    if (em.ran && mi < outputs.size() && !outputs[mi].empty()) eager_index = mi;
  }
  for (std::size_t mi = 0; mi < modes.size(); ++mi) {
    EngineMode& em = modes[mi];
    const std::string name = em.measured.mode + label;
    if (em.measured.mode == "eager" || !em.ran) continue;
    if (!eager_index) {
      // Why eager is no reference: the first group it could not run.
      std::string why = ": not compared (add eager to --mode to check its outputs)";
      for (const EngineMode& m : modes) {
        if (m.measured.mode != "eager") continue;
        why = ": not compared (eager did not run completely";
        why += m.coverage.missing.empty() ? ")" : ": " + m.coverage.missing.front() + ")";
      }
      notes.push_back(name + why);
    } else if (mi < outputs.size()) {
      compare(em, outputs[*eager_index], outputs[mi], modes[*eager_index].values, hints, reference);
      const std::size_t total = outputs[mi].size();
      if (em.outputs_not_compared > 0 && !em.max_rel_err) {
        notes.push_back(name + ": not compared (" +
                        (em.not_compared_in_eager ? "eager did not run completely: "
                                                  : "groups were skipped: ") +
                        em.not_compared_why + ")");
        continue;
      }
      if (em.outputs_not_compared > 0) {
        notes.push_back(name + ": " + std::to_string(total - em.outputs_not_compared) + " of " +
                        std::to_string(total) + " outputs compared; the others depend on " +
                        (em.not_compared_in_eager ? "what eager could not run: " : "") +
                        em.not_compared_why);
      }
      if (em.near_reference > 0) notes.push_back(name + ": " + near_reference_note(em));
      if (em.flagged) {
        const std::vector<ValueDigest>& eager = modes[*eager_index].values;
        notes.push_back(
            name + ": " +
            divergence_note(first_divergence(eager, em.values), shared_values(eager, em.values)));
      }
    }
  }
}

}  // namespace

void compare_with_eager(EngineRun& run, const std::vector<std::vector<HostOutput>>& outputs,
                        const ops::SymbolHints& hints, const std::vector<HostOutput>& reference) {
  compare_modes(run.modes, outputs, hints, "", run.notes, reference);
  const auto def = std::find_if(run.modes.begin(), run.modes.end(),
                                [](const EngineMode& m) { return m.measured.mode == "default"; });
  if (def != run.modes.end()) {
    run.coverage = def->coverage;
  } else if (!run.modes.empty()) {
    run.coverage = run.modes.front().coverage;
  }
}

void compare_backward_with_eager(EngineRun& run,
                                 const std::vector<std::vector<HostOutput>>& outputs,
                                 const ops::SymbolHints& hints,
                                 const std::vector<HostOutput>& reference) {
  compare_modes(run.backward, outputs, hints, " backward", run.notes, reference);
}

Result<EngineRun> run_engine(const EngineRunOptions& o) {
  auto modes = run_modes(o);
  if (!modes) return modes.error();
  compare_with_eager(modes->run, modes->outputs, modes->hints, modes->reference_outputs);
  compare_backward_with_eager(modes->run, modes->backward_outputs, modes->hints,
                              modes->backward_reference_outputs);
  return std::move(modes->run);
}

}  // namespace fxscope::gpu
