#include "fxscope/report/fuse_report.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "fxscope/fusion/source_map.h"
#include "fxscope/graph/fx_readable_parser.h"
#include "fxscope/inductor/provenance.h"
#include "fxscope/ops/op_registry.h"
#include "fxscope/report/kernel_shape.h"

namespace fxscope::report {
namespace {

// The rows the engine's reduction kernel keeps in one block, the cost data's persistent class.
constexpr std::int64_t kEngineRowInBlock = 1024;

cost::WorkClass class_of_op(std::string_view target) {
  switch (ops::classify(target).op_class) {
    case ops::OpClass::gemm:
    case ops::OpClass::conv:
    case ops::OpClass::attention:
      return cost::WorkClass::gemm_conv;
    case ops::OpClass::reduction:
      return cost::WorkClass::reduction;
    case ops::OpClass::pointwise:
    case ops::OpClass::broadcast:
    case ops::OpClass::injective:
    case ops::OpClass::view:
      return cost::WorkClass::elementwise;
    case ops::OpClass::opaque:
      break;
  }
  return cost::WorkClass::other;
}

cost::KernelClass kernel_class_of_op(std::string_view target) {
  switch (ops::classify(target).op_class) {
    case ops::OpClass::gemm:
      return cost::KernelClass::gemm;
    case ops::OpClass::conv:
      return cost::KernelClass::conv;
    case ops::OpClass::attention:
      return cost::KernelClass::attention;
    case ops::OpClass::reduction:
      return cost::KernelClass::reduction;
    case ops::OpClass::pointwise:
      return cost::KernelClass::pointwise;
    case ops::OpClass::broadcast:
    case ops::OpClass::injective:
    case ops::OpClass::view:
      return cost::KernelClass::copy;
    case ops::OpClass::opaque:
      break;
  }
  return cost::KernelClass::other;
}

// Whether convolution node ID convolves groups of channels apart (grouped, depthwise): its
// weight's input channels, [C_out, C_in / groups, ...], are fewer than its input's.
bool grouped_convolution(const graph::Graph& graph, graph::NodeId id) {
  const auto in = graph.inputs(id);
  const bool backward = graph.node(id).target.find("convolution_backward") != std::string::npos;
  const std::size_t input = backward ? 1 : 0;
  if (in.size() <= input + 1) return false;
  const auto& x = graph.node(in[input]).meta;
  const auto& w = graph.node(in[input + 1]).meta;
  if (!x || !w || x->rank() < 3 || w->rank() < 3) return false;
  const auto& c_in = x->sizes[1];
  const auto& per_group = w->sizes[1];
  return !c_in.is_symbolic() && !per_group.is_symbolic() && per_group.value < c_in.value;
}

// A library or eager group is priced by its heaviest op: the GEMM, convolution or attention
// among its nodes where there is one, else its first node.
cost::KernelClass library_class(const fusion::KernelGroup& group, const graph::Graph& graph) {
  if (group.nodes.empty()) return cost::KernelClass::other;
  for (const auto id : group.nodes) {
    const auto c = kernel_class_of_op(graph.node(id).target);
    if (c == cost::KernelClass::conv && grouped_convolution(graph, id)) {
      return cost::KernelClass::grouped_conv;
    }
    if (c == cost::KernelClass::gemm || c == cost::KernelClass::conv ||
        c == cost::KernelClass::attention) {
      return c;
    }
  }
  return kernel_class_of_op(graph.node(group.nodes.front()).target);
}

// Which dimension of META walks memory with stride 1, or -1 where none does (a scalar, symbolic
// strides, a broadcast); size-1 dimensions do not count.
int unit_stride_dim(const graph::TensorMeta& meta) {
  if (meta.sizes.size() != meta.strides.size()) return -1;
  for (std::size_t d = 0; d < meta.sizes.size(); ++d) {
    if (meta.sizes[d].is_symbolic() || meta.strides[d].is_symbolic()) return -1;
    if (meta.sizes[d].value > 1 && meta.strides[d].value == 1) return static_cast<int>(d);
  }
  return -1;
}

int last_nonunit_dim(const graph::TensorMeta& meta) {
  for (std::size_t d = meta.sizes.size(); d-- > 0;) {
    if (meta.sizes[d].is_symbolic() || meta.sizes[d].value > 1) return static_cast<int>(d);
  }
  return -1;
}

std::int64_t static_numel(const graph::TensorMeta& meta) {
  std::int64_t n = 1;
  for (const auto& d : meta.sizes) {
    if (d.is_symbolic()) return -1;
    n *= d.value;
  }
  return n;
}

// Whether GROUP reads or writes, at its full size, a tensor whose innermost dimension in memory
// is not its last (channels-last, a transpose): its elements are then addressed through every
// dimension's stride, or one side of each access is strided.
bool walks_permuted_layout(const fusion::KernelGroup& group, const graph::Graph& graph) {
  bool permuted = false;
  const auto look = [&](const std::vector<graph::NodeId>& ids) {
    for (const auto id : ids) {
      const auto& meta = graph.node(id).meta;
      if (!meta || meta->is_sym_scalar() || static_numel(*meta) != group.numel) continue;
      const int inner = unit_stride_dim(*meta);
      if (inner < 0) continue;
      permuted = permuted || inner != last_nonunit_dim(*meta);
    }
  };
  look(group.inputs);
  look(group.outputs);
  look(group.nodes);
  return permuted;
}

cost::Precision precision_of(const std::string& dtype) {
  // Samples and the GPU runs keep TF32 off, so f32 GEMMs run at the plain fp32 rate.
  if (dtype == "bf16") return cost::Precision::bf16;
  if (dtype == "f16") return cost::Precision::fp16;
  if (dtype == "f64") return cost::Precision::fp64;
  return cost::Precision::fp32;
}

cost::ModeCost price(const fusion::FusionPlan& plan, const graph::Graph& graph,
                     const cost::DeviceSpec& device, cost::LaunchMode launch) {
  std::vector<cost::KernelWork> work;
  work.reserve(plan.groups.size());
  for (const auto& g : plan.groups) work.push_back(kernel_work(g, graph, plan.mode));
  return cost::predict_mode(work, device, launch);
}

// One call of a plan: its groups and, for each op that runs subgraphs (torch.cond's branches,
// planned at one position), its costliest subgraph, since which branch a call takes depends on
// the data.
struct CallPrice {
  double us = 0;
  std::size_t launches = 0;
};
CallPrice price_call(const fusion::FusionPlan& plan, const graph::Graph& graph,
                     const cost::DeviceSpec& device, cost::LaunchMode launch) {
  CallPrice p{price(plan, graph, device, launch).total_us, plan.own_launches()};
  std::map<std::size_t, CallPrice> costliest;  // by the position the branches share
  for (const fusion::SubgraphPlan& sp : plan.subgraphs) {
    const graph::Graph* sub = graph.find_subgraph(sp.name);
    if (sub == nullptr) continue;
    const CallPrice branch = price_call(sp.plan, *sub, device, launch);
    CallPrice& c = costliest[sp.position];
    if (branch.us > c.us) c = branch;
  }
  for (const auto& [position, c] : costliest) {
    p.us += c.us;
    p.launches += c.launches;
  }
  return p;
}

bool wants_cuda_graphs(fusion::Mode mode) {
  return mode == fusion::Mode::reduce_overhead || mode == fusion::Mode::max_autotune;
}

cost::LaunchMode launch_mode(const fusion::FusionPlan& plan) {
  return wants_cuda_graphs(plan.mode) && plan.cuda_graphs.usable ? cost::LaunchMode::cuda_graph
                                                                 : cost::LaunchMode::host;
}

// The cost of one mode from the unit's graphs planned in that mode.
ModePrediction predict(const std::vector<fusion::GraphFusion>& planned, fusion::Mode mode,
                       const cost::DeviceSpec& device) {
  ModePrediction p;
  p.mode = mode;
  p.cuda_graphs = wants_cuda_graphs(mode);
  for (const auto& g : planned) {
    const CallPrice call = price_call(g.ours, g.post_grad, device, launch_mode(g.ours));
    p.launches += call.launches;
    p.total_us += call.us;
    if (!wants_cuda_graphs(mode)) continue;
    if (!g.ours.cuda_graphs.usable) p.cuda_graphs = false;
    p.cuda_graph_notes.insert(p.cuda_graph_notes.end(), g.ours.cuda_graphs.reasons.begin(),
                              g.ours.cuda_graphs.reasons.end());
  }
  return p;
}

// The user's graph and Inductor's provenance mapping of UNIT, for tracing groups back to it.
struct UserGraph {
  std::optional<graph::Graph> dynamo;
  std::optional<inductor::Provenance> provenance;
};

UserGraph user_graph(const trace::CompileUnit& unit) {
  UserGraph u;
  if (const trace::Artifact* a = unit.dynamo_graph()) {
    u.dynamo = graph::parse_fx_readable(a->payload.text(), a->name).graph;
  }
  if (const trace::Artifact* p = unit.find(trace::ArtifactKind::kProvenanceMappings)) {
    auto parsed = inductor::parse_provenance(p->payload.text(), p->name);
    if (parsed) u.provenance = std::move(*parsed);
  }
  return u;
}

std::vector<std::vector<std::string>> dynamo_nodes_of(const fusion::GraphFusion& g,
                                                      const UserGraph& user) {
  std::vector<std::vector<std::string>> out(g.ours.groups.size());
  if (!user.dynamo || g.ours.mode == fusion::Mode::eager) return out;
  const auto map = fusion::map_to_dynamo(g.post_grad, *user.dynamo,
                                         user.provenance ? &*user.provenance : nullptr);
  for (std::size_t i = 0; i < g.ours.groups.size(); ++i) {
    std::set<graph::NodeId> ids;
    for (const auto node : g.ours.groups[i].nodes) {
      if (node < map.size()) ids.insert(map[node].begin(), map[node].end());
    }
    for (const auto id : ids) out[i].push_back(user.dynamo->node(id).name);
  }
  return out;
}

UnitFuseReport report_unit(const trace::CompileUnit& unit, fusion::Mode mode,
                           const cost::DeviceSpec& device, ModeCoverage coverage,
                           Warnings& warnings) {
  UnitFuseReport r;
  r.compile_id = unit.id.without_attempt().str();
  r.mode = mode;
  std::vector<cost::KernelWork> all_work;
  cost::LaunchMode launch = cost::LaunchMode::host;
  const UserGraph user = user_graph(unit);
  auto planned = fusion::fuse_unit(unit, mode);
  // The requested mode's plans are priced once here and reused for its prediction below.
  r.predicted.push_back(predict(planned, mode, device));
  for (auto& g : planned) {
    GraphReport gr;
    gr.dynamo_nodes = dynamo_nodes_of(g, user);
    launch = launch_mode(g.ours);
    gr.ours = price(g.ours, g.post_grad, device, launch);
    gr.inductor = price(g.inductor, g.post_grad, device, launch);
    for (const auto& group : g.ours.groups)
      all_work.push_back(kernel_work(group, g.post_grad, g.ours.mode));
    warnings.insert(warnings.end(), g.warnings.begin(), g.warnings.end());
    gr.fusion = std::move(g);
    r.graphs.push_back(std::move(gr));
  }
  r.shares = cost::predict_mode(all_work, device, launch).shares;
  if (coverage == ModeCoverage::every_mode) {
    ModePrediction requested = std::move(r.predicted.front());
    r.predicted.clear();
    for (const fusion::Mode m : fusion::kAllModes) {
      r.predicted.push_back(m == mode ? requested : predict(fusion::fuse_unit(unit, m), m, device));
    }
  }
  // Speedups are over eager, so they exist only where eager was predicted too.
  const auto eager = std::find_if(r.predicted.begin(), r.predicted.end(),
                                  [](const auto& p) { return p.mode == fusion::Mode::eager; });
  for (auto& p : r.predicted) {
    p.speedup_over_eager =
        eager != r.predicted.end() && p.total_us > 0 ? eager->total_us / p.total_us : 0;
  }
  return r;
}

}  // namespace

cost::KernelWork kernel_work(const fusion::KernelGroup& group, const graph::Graph& graph,
                             fusion::Mode mode) {
  cost::KernelWork w;
  w.name = group.name;
  w.bytes = group.bytes_read + group.bytes_written;
  w.rows = static_cast<double>(group.numel);
  w.flops = group.flops;
  w.alu_slots = group.alu_slots;
  switch (group.kind) {
    case fusion::GroupKind::pointwise:
      w.work_class = cost::WorkClass::elementwise;
      w.kernel_class =
          fusion::is_layout_copy(group) ? cost::KernelClass::copy : cost::KernelClass::pointwise;
      break;
    case fusion::GroupKind::combo:
      // Pointwise sub-kernels one after another in one launch.
      w.work_class = cost::WorkClass::elementwise;
      w.kernel_class = cost::KernelClass::pointwise;
      break;
    case fusion::GroupKind::reduction:
    case fusion::GroupKind::persistent_reduction:
      // The class follows the engine's kernel, which the model is fitted to and which keeps a
      // row of up to 1,024 elements in one block whatever Triton's kernel would (the kind).
      w.work_class = cost::WorkClass::reduction;
      w.kernel_class = group.rnumel <= kEngineRowInBlock ? cost::KernelClass::persistent_reduction
                                                         : cost::KernelClass::reduction;
      break;
    case fusion::GroupKind::template_gemm:
      w.work_class = cost::WorkClass::gemm_conv;
      w.kernel_class = library_class(group, graph);
      if (w.kernel_class != cost::KernelClass::conv &&
          w.kernel_class != cost::KernelClass::grouped_conv) {
        w.kernel_class = cost::KernelClass::gemm;
      }
      break;
    case fusion::GroupKind::extern_kernel:
    case fusion::GroupKind::eager_op:
      w.work_class = group.nodes.empty() ? cost::WorkClass::other
                                         : class_of_op(graph.node(group.nodes.front()).target);
      w.kernel_class = library_class(group, graph);
      break;
  }
  if (fusion::on_host(group)) {
    w.work_class = cost::WorkClass::other;
    w.kernel_class = cost::KernelClass::host;
  }
  if ((w.kernel_class == cost::KernelClass::pointwise ||
       w.kernel_class == cost::KernelClass::copy) &&
      group.numel > 1 && walks_permuted_layout(group, graph)) {
    w.kernel_class = cost::KernelClass::transpose;
  }
  const auto& outputs = group.outputs.empty() ? group.nodes : group.outputs;
  if (!outputs.empty() && graph.node(outputs.front()).meta) {
    w.precision = precision_of(graph.node(outputs.front()).meta->dtype);
  } else if (!outputs.empty()) {
    // A tuple result (convolution_backward, attention) has no annotation: its first input's
    // dtype is the precision it computes in.
    const auto in = graph.inputs(outputs.front());
    if (!in.empty() && graph.node(in.front()).meta) {
      w.precision = precision_of(graph.node(in.front()).meta->dtype);
    }
  }
  w.shape = kernel_shape(group, graph, w.kernel_class, mode);
  return w;
}

Result<FuseReport> build_fuse_report(const trace::TraceLog& log, fusion::Mode mode,
                                     const std::string& unit_id, const cost::DeviceSpec& device,
                                     ModeCoverage coverage) {
  FuseReport report;
  report.path = log.path();
  report.device = device;
  std::string known;
  for (const auto& unit : log.units()) {
    const std::string id = unit.id.without_attempt().str();
    known += (known.empty() ? "" : ", ") + id;
    if (!unit_id.empty() && id != unit_id) continue;
    report.units.push_back(report_unit(unit, mode, device, coverage, report.warnings));
  }
  if (!unit_id.empty() && report.units.empty()) {
    return make_error(log.path() + ": no compile unit " + unit_id + " (the log has " + known + ")");
  }
  return report;
}

}  // namespace fxscope::report
