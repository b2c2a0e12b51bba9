#include "fxscope/report/graph_break_impact.h"

#include <algorithm>
#include <regex>

#include "fxscope/cost/roofline.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/ops/op_cost.h"
#include "fxscope/report/summary.h"

namespace fxscope::report {
namespace {

const std::string kResumePrefix = "torch_dynamo_resume_in_";

// What Dynamo's message says runs outside the graph: the ATen op it names ("Operator
// `aten.nonzero.default`'s output shape depends on input Tensor data"), or the op behind a
// Tensor method it refuses to trace.
void read_eager_ops(const trace::GraphBreak& gb, BreakImpact& impact) {
  const std::string text = gb.reason + "\n" + gb.explanation;
  if (text.find("Tensor.item()") != std::string::npos ||
      text.find("Tensor.tolist()") != std::string::npos) {
    impact.eager_ops.push_back("aten._local_scalar_dense.default");
    impact.host_sync = true;
  }
  // "Operator `torchvision.nms.default`'s output shape ...", or an ATen op named anywhere.
  static const std::regex kOp(R"(Operator `([^`]+)`|(aten\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)?))");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kOp); it != std::sregex_iterator();
       ++it) {
    const std::string op = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
    if (std::find(impact.eager_ops.begin(), impact.eager_ops.end(), op) == impact.eager_ops.end()) {
      impact.eager_ops.push_back(op);
    }
  }
  impact.frame_skipped = gb.explanation.find("Skipping the frame") != std::string::npos;
  // An op whose output shape or value Dynamo cannot know without the data: the host waits for
  // the device to compute it.
  if (gb.reason.find("Dynamic shape operator") != std::string::npos ||
      gb.reason.find("Data dependent operator") != std::string::npos ||
      gb.reason.find("data-dependent") != std::string::npos) {
    impact.host_sync = true;
  }
}

// Bytes of a tensor annotation; nullopt for a symbolic size (or no tensor at all).
std::optional<double> tensor_bytes(const std::optional<graph::TensorMeta>& meta) {
  if (!meta || meta->is_sym_scalar()) return std::nullopt;
  double numel = 1;
  for (const auto& d : meta->sizes) {
    if (d.is_symbolic()) return std::nullopt;
    numel *= static_cast<double>(d.value);
  }
  return numel * static_cast<double>(ops::dtype_bytes(meta->dtype));
}

std::optional<graph::Graph> parsed_dynamo_graph(const trace::CompileUnit& unit) {
  const trace::Artifact* a = unit.dynamo_graph();
  if (a == nullptr) return std::nullopt;
  return graph::parse_fx_readable(a->payload.text(), a->name).graph;
}

// The first value the graph returns: Dynamo returns the values on the stack at the break (what
// the eager op consumes) before the live locals.
double first_output_bytes(const graph::Graph& g) {
  for (const auto& node : g.nodes()) {
    if (node.op != graph::OpKind::output || node.args.empty()) continue;
    const auto& result = node.args.front();
    const auto& items = result.is_node() ? std::vector<graph::Argument>{result} : result.items();
    if (items.empty() || !items.front().is_node()) return 0;
    return tensor_bytes(g.node(items.front().as_node()).meta).value_or(0);
  }
  return 0;
}

// The resumed graph's inputs that came across the break: every placeholder but the module's
// parameters and buffers, which no break moves.
void read_crossing(const graph::Graph& g, BreakImpact& impact) {
  for (const auto& node : g.nodes()) {
    if (node.op != graph::OpKind::placeholder || !node.meta || node.meta->is_sym_scalar()) continue;
    if (node.name.find("_parameters_") != std::string::npos ||
        node.name.find("_buffers_") != std::string::npos) {
      continue;
    }
    ++impact.crossing_tensors;
    if (const auto bytes = tensor_bytes(node.meta)) {
      impact.crossing_bytes += *bytes;
    } else {
      ++impact.unsized_tensors;
    }
  }
}

void price_break(BreakImpact& impact, const cost::DeviceSpec& device) {
  for (const auto& op : impact.eager_ops) {
    const cost::KernelWork work{op, cost::WorkClass::other, 2 * impact.eager_input_bytes,
                                0,  cost::Precision::fp32,  0};
    impact.eager_us += cost::predict_kernel(work, device, cost::LaunchMode::host).total_us;
  }
  if (impact.host_sync) impact.sync_us = device.launch_overhead_us;
  if (impact.resumed.empty()) return;
  const double bandwidth = device.memory_bandwidth_gbs * device.memory_efficiency;  // GB/s
  if (bandwidth > 0) impact.crossing_us = 2 * impact.crossing_bytes / (bandwidth * 1e3);
  impact.launch_us = device.launch_overhead_us;
}

}  // namespace

std::string resume_function(const std::string& function, int line) {
  std::string base = function;
  if (base.starts_with(kResumePrefix)) {
    base.erase(0, kResumePrefix.size());
    if (const auto at = base.rfind("_at_"); at != std::string::npos) base.resize(at);
  }
  return kResumePrefix + base + "_at_" + std::to_string(line);
}

bool resumes(const UnitSummary& before, const trace::GraphBreak& break_site,
             const UnitSummary& after) {
  if (!after.frame.function.starts_with(kResumePrefix)) return false;
  if (resume_function(before.frame.function, break_site.line) == after.frame.function) return true;
  return std::any_of(break_site.user_stack.rbegin(), break_site.user_stack.rend(),
                     [&](const trace::StackFrame& f) {
                       return resume_function(before.frame.function, f.line) ==
                              after.frame.function;
                     });
}

std::optional<std::size_t> resumed_unit(const std::vector<UnitSummary>& units, std::size_t unit,
                                        const trace::GraphBreak& break_site) {
  for (std::size_t u = unit + 1; u < units.size(); ++u) {
    if (resumes(units[unit], break_site, units[u])) return u;
  }
  return std::nullopt;
}

cost::DeviceSpec break_impact_device() {
  return cost::find_device("H200").value_or(cost::known_devices().front());
}

std::vector<BreakImpact> rank_break_impact(const trace::TraceLog& log,
                                           const std::vector<UnitSummary>& units,
                                           const cost::DeviceSpec& device) {
  std::vector<BreakImpact> impacts;
  const auto& breaks = log.graph_breaks();
  const auto& log_units = log.units();
  for (std::size_t b = 0; b < breaks.size(); ++b) {
    BreakImpact impact;
    impact.graph_break = b;
    read_eager_ops(breaks[b], impact);
    std::optional<std::size_t> first_split;
    std::optional<std::size_t> first_resumed;
    for (std::size_t u = 0; u < units.size() && u < log_units.size(); ++u) {
      if (std::find(units[u].graph_breaks.begin(), units[u].graph_breaks.end(), b) ==
          units[u].graph_breaks.end()) {
        continue;
      }
      impact.split.push_back(units[u].compile_id);
      if (!first_split) first_split = u;
      if (const auto r = resumed_unit(units, u, breaks[b])) {
        const std::string id = units[*r].compile_id;
        if (std::find(impact.resumed.begin(), impact.resumed.end(), id) == impact.resumed.end())
          impact.resumed.push_back(id);
        if (!first_resumed) first_resumed = r;
      }
    }
    // The first compile at each side prices the break: later ones recompiled the same code.
    if (first_split) {
      if (const auto g = parsed_dynamo_graph(log_units[*first_split]))
        impact.eager_input_bytes = first_output_bytes(*g);
    }
    if (first_resumed) {
      if (const auto g = parsed_dynamo_graph(log_units[*first_resumed])) read_crossing(*g, impact);
      const auto& metrics = log_units[*first_resumed].metrics;
      if (metrics && metrics->guard_latency_us)
        impact.guard_us = static_cast<double>(*metrics->guard_latency_us);
    }
    price_break(impact, device);
    impacts.push_back(std::move(impact));
  }
  std::stable_sort(impacts.begin(), impacts.end(),
                   [](const auto& a, const auto& b) { return a.lost_us() > b.lost_us(); });
  return impacts;
}

}  // namespace fxscope::report
