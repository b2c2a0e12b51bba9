#include "fxscope/report/compile_time.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "fxscope/fusion/captured_mode.h"
#include "fxscope/fusion/cuda_graph_check.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/trace/json_scan.h"
#include "logged_cache_lookups.h"

namespace fxscope::report {
namespace {

using Json = nlohmann::json;
using trace::ChromiumEvent;

// Roots of the timed compiles: Dynamo's whole frame (what entire_frame_compile_time_s times)
// and the backward that AOTAutograd compiles at the first backward call.
constexpr std::string_view kForwardRoot = "entire_frame_compile";
constexpr std::string_view kBackwardRoot = "entire_backward_compile";
// The span dynamo_timed wraps around the frame compile and its bookkeeping: not a runtime span.
constexpr std::string_view kDynamoSpan = "dynamo";

// A begin/end pair. Indices, not pointers: the vector grows while events are read.
struct Span {
  std::string_view name;
  double begin_us = 0;
  double end_us = 0;
  const ChromiumEvent* end = nullptr;  // the end event, whose args hold the phase's results
  std::vector<std::size_t> children;

  bool closed() const { return end != nullptr; }
  double seconds() const { return (end_us - begin_us) / 1e6; }
};

struct Forest {
  std::vector<Span> spans;
  std::vector<std::size_t> roots;
  std::size_t unmatched = 0;
};

// dynamo_timed logs a begin when a phase starts and its end when it returns, on one thread, so
// the log order nests them; an end closes the innermost open span of its name.
Forest build_forest(const std::vector<ChromiumEvent>& events) {
  Forest f;
  std::vector<std::size_t> open;
  for (const auto& e : events) {
    if (e.phase == 'B') {
      const std::size_t i = f.spans.size();
      f.spans.push_back({e.name, e.ts_us, e.ts_us, nullptr, {}});
      (open.empty() ? f.roots : f.spans[open.back()].children).push_back(i);
      open.push_back(i);
    } else if (e.phase == 'E') {
      const auto it = std::find_if(open.rbegin(), open.rend(),
                                   [&](std::size_t i) { return f.spans[i].name == e.name; });
      if (it == open.rend()) {
        ++f.unmatched;
        continue;
      }
      Span& span = f.spans[*it];
      span.end_us = e.ts_us;
      span.end = &e;
      // Spans opened inside it and never ended: counted, and left out of every sum.
      const auto first_open = std::prev(it.base());
      f.unmatched += static_cast<std::size_t>(std::distance(first_open, open.end())) - 1;
      open.erase(first_open, open.end());
    }
  }
  f.unmatched += open.size();
  return f;
}

// The spans of one name under one parent, merged, with their children merged the same way.
struct Node {
  std::string_view name;
  double total_s = 0;
  double self_s = 0;
  int count = 0;
  std::vector<Node> children;
};

void merge(Node& into, const Forest& f, std::size_t index) {
  const Span& span = f.spans[index];
  into.total_s += span.seconds();
  into.count += 1;
  double children_s = 0;
  for (const std::size_t c : span.children) {
    const Span& child = f.spans[c];
    if (!child.closed()) continue;
    children_s += child.seconds();
    auto node = std::find_if(into.children.begin(), into.children.end(),
                             [&](const Node& n) { return n.name == child.name; });
    if (node == into.children.end()) {
      into.children.push_back(Node{child.name, 0, 0, 0, {}});
      node = std::prev(into.children.end());
    }
    merge(*node, f, c);
  }
  // Not clamped: children that overlap their parent would show here as negative time.
  into.self_s += span.seconds() - children_s;
}

void flatten(Node& node, int depth, std::vector<PhaseTime>& rows) {
  std::stable_sort(node.children.begin(), node.children.end(),
                   [](const Node& a, const Node& b) { return a.total_s > b.total_s; });
  rows.push_back({std::string(node.name), phase_label(node.name), depth, node.total_s, node.self_s,
                  node.count});
  for (auto& child : node.children) flatten(child, depth + 1, rows);
}

// Every closed span named ROOT, merged into one tree; nullopt when there is none.
std::optional<PhaseTree> phase_tree(const Forest& f, std::string_view root,
                                    std::optional<double> dynamo_s) {
  Node node{root, 0, 0, 0, {}};
  for (std::size_t i = 0; i < f.spans.size(); ++i) {
    if (f.spans[i].name == root && f.spans[i].closed()) merge(node, f, i);
  }
  if (node.count == 0) return std::nullopt;
  PhaseTree tree;
  tree.root = std::string(root);
  flatten(node, 0, tree.phases);
  tree.events_s = node.total_s;
  tree.other_s = node.self_s;
  for (const auto& row : tree.phases) tree.accounted_s += row.self_s;
  tree.dynamo_s = dynamo_s;
  return tree;
}

bool holds_compile(const Forest& f, std::size_t index) {
  const Span& span = f.spans[index];
  if (span.name == kForwardRoot || span.name == kBackwardRoot || span.name == kDynamoSpan) {
    return true;
  }
  return std::any_of(span.children.begin(), span.children.end(),
                     [&](std::size_t c) { return holds_compile(f, c); });
}

// The members KEYS of an event's args, each parsed on its own: args can hold Dynamo's whole
// config (tens of KB) beside the few fields read here.
Json args_members(std::string_view args, std::initializer_list<std::string_view> keys) {
  Json out = Json::object();
  trace::for_each_member(args, [&](std::string_view key, std::string_view value) {
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) {
      Json member = Json::parse(value, nullptr, /*allow_exceptions=*/false);
      if (!member.is_discarded()) out[std::string(key)] = std::move(member);
    }
    return true;
  });
  return out;
}

std::string string_member(const Json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// FX graph cache lookups are reported on inductor_compile's end event; AOTAutograd's as an
// instant event named for the outcome (autograd_cache_hit, _miss, _bypass).
std::vector<CacheLookup> cache_lookups(const std::vector<ChromiumEvent>& events) {
  std::vector<CacheLookup> lookups;
  constexpr std::string_view kAotPrefix = "autograd_cache_";
  for (const auto& e : events) {
    const bool fx = e.phase == 'E' && e.name == "inductor_compile";
    const bool aot = e.phase == 'i' && e.name.substr(0, kAotPrefix.size()) == kAotPrefix;
    if (!fx && !aot) continue;
    const Json a = args_members(
        e.args, {"cache_state", "key", "cache_bypass_reason", "reason", "is_backward"});
    CacheLookup lookup;
    lookup.cache = fx ? "fx_graph" : "aot_autograd";
    lookup.state = string_member(a, "cache_state");
    if (lookup.state.empty() && aot) lookup.state = std::string(e.name.substr(kAotPrefix.size()));
    if (lookup.state.empty()) continue;
    lookup.key = string_member(a, "key");
    lookup.reason = string_member(a, "cache_bypass_reason");
    if (lookup.reason.empty()) lookup.reason = string_member(a, "reason");
    const auto backward = a.find("is_backward");
    lookup.backward = backward != a.end() && backward->is_boolean() && backward->get<bool>();
    lookups.push_back(std::move(lookup));
  }
  return lookups;
}

std::vector<RuntimeSpan> runtime_spans(const Forest& f) {
  std::vector<RuntimeSpan> spans;
  for (const std::size_t i : f.roots) {
    const Span& span = f.spans[i];
    if (!span.closed() || holds_compile(f, i)) continue;
    const Json a = args_members(span.end->args, {"kernel_name"});
    spans.push_back({std::string(span.name), string_member(a, "kernel_name"), span.seconds()});
  }
  return spans;
}

// fxscope's CUDA-graph check over each post-grad graph of UNIT: usable only if every graph is.
fusion::CudaGraphVerdict predict_cuda_graphs(const trace::CompileUnit& unit) {
  fusion::CudaGraphVerdict verdict;
  const std::set<std::size_t> static_inputs = fusion::cudagraph_static_inputs(unit);
  for (const auto direction :
       {trace::Direction::kNone, trace::Direction::kForward, trace::Direction::kBackward}) {
    const trace::Artifact* a = unit.find(trace::ArtifactKind::kPostGradGraph, direction);
    if (a == nullptr || a->direction != direction) continue;
    const auto parsed = graph::parse_fx_readable(a->payload.text(), a->name);
    const auto graph_verdict = fusion::check_cuda_graphs(parsed.graph, static_inputs);
    verdict.usable = verdict.usable && graph_verdict.usable;
    for (const auto& reason : graph_verdict.reasons) {
      verdict.reasons.push_back(direction == trace::Direction::kBackward ? "backward: " + reason
                                                                         : reason);
    }
  }
  return verdict;
}

bool uses_cuda_graphs(const trace::CompileUnit& unit) {
  const auto mode = fusion::captured_mode(unit);
  return mode == fusion::Mode::reduce_overhead || mode == fusion::Mode::max_autotune;
}

UnitCompileTime unit_compile_time(const trace::CompileUnit& unit) {
  UnitCompileTime u;
  u.compile_id = unit.id.str();
  const Forest f = build_forest(unit.chromium_events);
  u.unmatched_events = f.unmatched;
  const auto& m = unit.metrics;
  u.forward = phase_tree(f, kForwardRoot, m ? m->entire_frame_compile_time_s : std::nullopt);
  // Each backward graph has its own record and its own entire_backward_compile span; the tree
  // merges the spans, so Dynamo's side is the sum of the records.
  std::optional<double> backward_s;
  for (const auto& bm : unit.backward_metrics) {
    if (bm.duration_us)
      backward_s = backward_s.value_or(0) + static_cast<double>(*bm.duration_us) / 1e6;
  }
  u.backward = phase_tree(f, kBackwardRoot, backward_s);
  u.runtime = runtime_spans(f);
  u.caches = with_logged_lookups(unit, cache_lookups(unit.chromium_events));
  std::vector<const trace::CompilationMetrics*> records;
  if (m) records.push_back(&*m);
  for (const auto& bm : unit.backward_metrics) records.push_back(&bm);
  for (const auto* metrics : records) {
    u.triton_compiles.insert(u.triton_compiles.end(), metrics->triton_kernel_compile_times.begin(),
                             metrics->triton_kernel_compile_times.end());
    if (metrics->compile_time_autotune_time_us) {
      u.autotune_us = u.autotune_us.value_or(0) + *metrics->compile_time_autotune_time_us;
    }
    if (metrics->cudagraph_skip_reason) u.cudagraph_skip_reason = metrics->cudagraph_skip_reason;
  }
  if (u.cudagraph_skip_reason || uses_cuda_graphs(unit)) {
    u.cuda_graph_prediction = predict_cuda_graphs(unit);
  }
  const auto spans_named = [&](std::string_view name) {
    return static_cast<std::size_t>(std::count_if(
        u.runtime.begin(), u.runtime.end(), [&](const RuntimeSpan& r) { return r.name == name; }));
  };
  if (spans_named("cudagraphify.get_container") > 0)
    u.cuda_graphs_recorded = spans_named("CUDAGraphNode.record");
  if (m) {
    u.guard_count = m->guard_count;
    u.guard_latency_us = m->guard_latency_us;
    if (m->fail_type) u.failure = *m->fail_type + ": " + m->fail_reason.value_or("");
  }
  return u;
}

}  // namespace

std::optional<double> PhaseTree::deviation() const {
  if (!dynamo_s || *dynamo_s <= 0) return std::nullopt;
  return (accounted_s - *dynamo_s) / *dynamo_s;
}

double UnitCompileTime::compile_s() const {
  return (forward ? forward->events_s : 0) + (backward ? backward->events_s : 0);
}

CompileTimeReport compile_time(const trace::TraceLog& log) {
  CompileTimeReport report;
  report.path = log.path();
  std::map<std::string, std::size_t> phase_index;
  for (const auto& unit : log.units()) {
    UnitCompileTime u = unit_compile_time(unit);
    for (const auto* tree :
         {u.forward ? &*u.forward : nullptr, u.backward ? &*u.backward : nullptr}) {
      if (tree == nullptr) continue;
      for (const auto& row : tree->phases) {
        const auto [it, added] = phase_index.try_emplace(row.name, report.by_phase.size());
        if (added) report.by_phase.push_back({row.name, row.what, 0, 0, 0, 0});
        PhaseTime& sum = report.by_phase[it->second];
        sum.self_s += row.self_s;
        sum.count += row.count;
      }
    }
    report.total_s += u.compile_s();
    report.units.push_back(std::move(u));
  }
  // A phase's total would count nested phases twice over units; ranked by its own time.
  std::stable_sort(report.by_phase.begin(), report.by_phase.end(),
                   [](const PhaseTime& a, const PhaseTime& b) { return a.self_s > b.self_s; });
  for (auto& row : report.by_phase) row.total_s = row.self_s;
  return report;
}

std::string phase_label(std::string_view name) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 34> kLabels{{
      {"entire_frame_compile", "Dynamo: the whole frame compile"},
      {"entire_backward_compile", "the backward compile, at the first backward call"},
      {"compile_attempt_0", "Dynamo: first attempt"},
      {"compile_attempt_1", "Dynamo: restart 1"},
      {"compile_attempt_2", "Dynamo: restart 2"},
      {"bytecode_tracing", "Dynamo tracing"},
      {"insert_deferred_runtime_asserts", "Dynamo: runtime asserts"},
      {"build_guards", "Dynamo: building guards"},
      {"gc", "garbage collection"},
      {"backend_compile", "backend (AOTAutograd + Inductor)"},
      {"create_aot_dispatcher_function", "AOTAutograd"},
      {"aot_collect_metadata", "AOTAutograd: collect metadata"},
      {"aot_trace_joint_graph", "AOTAutograd: trace joint graph"},
      {"min_cut_rematerialization_partition", "AOTAutograd: partition forward/backward"},
      {"inductor_codecache_torch_key", "Inductor: hash torch sources (cache key)"},
      {"_recursive_pre_grad_passes", "Inductor pre-grad passes"},
      {"_recursive_joint_graph_passes", "Inductor joint-graph passes"},
      {"_recursive_post_grad_passes", "Inductor post-grad passes"},
      {"inductor_compile", "Inductor"},
      {"fx_codegen_and_compile", "Inductor: graph to code"},
      {"additional_fake_tensor_prop", "Inductor: fake tensor propagation"},
      {"GraphLowering.run", "Inductor lowering"},
      {"GraphLowering.compile_to_fn", "Inductor: compile to module"},
      {"code_gen", "Inductor codegen"},
      {"GraphLowering.codegen", "Inductor codegen: scheduling and kernels"},
      {"Scheduler.__init__", "Inductor scheduling (fusion)"},
      {"Scheduler.fused_nodes", "Inductor scheduling: fuse nodes"},
      {"Scheduler.codegen", "Inductor: kernel code"},
      {"PythonWrapperCodegen.generate", "Inductor: wrapper code"},
      {"PyCodeCache.load_by_key_path", "load the module, compile its kernels"},
      {"async_compile.precompile", "Triton kernel compiles"},
      {"async_compile.wait", "wait for Triton compiles"},
      {"AOTAutogradCache.inductor_load", "AOTAutograd cache: load"},
      {"CachingAutotuner.benchmark_all_configs", "autotune a kernel's configs"},
  }};
  for (const auto& [event, label] : kLabels) {
    if (event == name) return std::string(label);
  }
  constexpr std::string_view kPass = "pass.";
  if (name.substr(0, kPass.size()) == kPass) return "Inductor pass";
  constexpr std::string_view kAutotuning = "_template_autotuning";
  constexpr std::string_view kPrecompiling = "_template_precompiling";
  if (name.size() > kAutotuning.size() && name.ends_with(kAutotuning))
    return "max-autotune: benchmark choices";
  if (name.size() > kPrecompiling.size() && name.ends_with(kPrecompiling)) {
    return "max-autotune: compile choices";
  }
  return {};
}

bool UnitCompileTime::cuda_graphs_skipped() const {
  return cudagraph_skip_reason.has_value() || cuda_graphs_recorded == std::size_t{0};
}

std::optional<bool> UnitCompileTime::cuda_graph_prediction_agrees() const {
  if (!cuda_graph_prediction) return std::nullopt;
  if (!cudagraph_skip_reason && !cuda_graphs_recorded) {
    // No verdict of PyTorch's beyond the metrics record's empty reason: read as captured.
    return cuda_graph_prediction->usable;
  }
  return cuda_graph_prediction->usable != cuda_graphs_skipped();
}

}  // namespace fxscope::report
