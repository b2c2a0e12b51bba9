#include "fxscope/report/fuse_report_json.h"

#include <nlohmann/json.hpp>

#include "fxscope/report/summary_json.h"

namespace fxscope::report {
namespace {

using nlohmann::json;

json node_names(const std::vector<graph::NodeId>& ids, const graph::Graph& graph) {
  json names = json::array();
  for (const auto id : ids) names.push_back(graph.node(id).name);
  return names;
}

json groups_json(const fusion::FusionPlan& plan, const cost::ModeCost& cost,
                 const graph::Graph& graph, const std::string& where) {
  json out = json::array();
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const auto& g = plan.groups[i];
    const cost::KernelWork work = kernel_work(g, graph, plan.mode);
    out.push_back(json{{"name", g.name},
                       {"kind", fusion::to_string(g.kind)},
                       {"graph", where},
                       {"nodes", node_names(g.nodes, graph)},
                       {"bytes", g.bytes_read + g.bytes_written},
                       {"flops", g.flops},
                       {"numel", g.numel},
                       {"rnumel", g.rnumel},
                       {"alu_slots", g.alu_slots},
                       {"kernel_class", cost::to_string(work.kernel_class)},
                       {"precision", cost::to_string(work.precision)},
                       {"shape", work.shape},
                       {"device_us", cost.kernels[i].device_us},
                       {"predicted_us", cost.kernels[i].total_us},
                       {"memory_bound", cost.kernels[i].memory_bound},
                       {"note", g.note}});
  }
  return out;
}

json agreement_json(const GraphReport& g) {
  const auto& a = g.fusion.agreement;
  json disagreements = json::array();
  for (const auto& k : a.kernels) {
    if (k.exact) continue;
    // A subgraph's kernels hold its nodes, compared with the plan of that subgraph.
    const fusion::FusionPlan* inductor = fusion::subgraph_plan(g.fusion.inductor, k.subgraph);
    const fusion::FusionPlan* mine = fusion::subgraph_plan(g.fusion.ours, k.subgraph);
    const graph::Graph* graph =
        k.subgraph.empty() ? &g.fusion.post_grad : g.fusion.post_grad.find_subgraph(k.subgraph);
    if (inductor == nullptr || graph == nullptr) continue;
    const auto& theirs = inductor->groups[k.inductor_group];
    json entry{{"inductor", {{"name", theirs.name}, {"nodes", node_names(theirs.nodes, *graph)}}}};
    if (!k.subgraph.empty()) entry["subgraph"] = k.subgraph;
    if (mine && k.closest_group < mine->groups.size()) {
      const auto& ours = mine->groups[k.closest_group];
      entry["ours"] = {{"name", ours.name}, {"nodes", node_names(ours.nodes, *graph)}};
    }
    disagreements.push_back(entry);
  }
  return json{{"graph", g.fusion.where},
              {"our_launches", a.our_launches},
              {"inductor_launches", a.inductor_launches},
              {"launch_ratio", a.launch_ratio()},
              {"inductor_kernels", a.kernels.size()},
              {"exact", a.exact_count()},
              {"exact_share", a.exact_share()},
              {"disagreements", disagreements}};
}

json shares_json(const std::vector<cost::ClassShare>& shares) {
  json out = json::object();
  for (const auto& s : shares) {
    out[std::string(cost::to_string(s.work_class))] = {
        {"kernels", s.kernels}, {"time_share", s.time_share}, {"bytes_share", s.bytes_share}};
  }
  return out;
}

json unit_json(const UnitFuseReport& u) {
  json groups = json::array();
  json inductor = json::array();
  json agreement = json::array();
  json notes = json::array();
  json unknown = json::array();
  for (const auto& g : u.graphs) {
    auto ours = groups_json(g.fusion.ours, g.ours, g.fusion.post_grad, g.fusion.where);
    for (std::size_t i = 0; i < ours.size(); ++i) {
      ours[i]["dynamo_nodes"] = g.dynamo_nodes[i];
      groups.push_back(std::move(ours[i]));
    }
    for (auto& x : groups_json(g.fusion.inductor, g.inductor, g.fusion.post_grad, g.fusion.where)) {
      inductor.push_back(std::move(x));
    }
    if (!g.fusion.inductor.groups.empty()) agreement.push_back(agreement_json(g));
    for (const auto& n : g.fusion.ours.notes) notes.push_back(n);
    for (const auto& op : g.fusion.ours.unknown_ops) {
      unknown.push_back({{"target", op.target}, {"count", op.count}});
    }
  }
  json predicted = json::object();
  for (const auto& p : u.predicted) {
    predicted[std::string(fusion::to_string(p.mode))] = {{"total_us", p.total_us},
                                                         {"launches", p.launches},
                                                         {"speedup", p.speedup_over_eager},
                                                         {"cuda_graphs", p.cuda_graphs},
                                                         {"cuda_graph_notes", p.cuda_graph_notes}};
  }
  return json{{"compile_id", u.compile_id},
              {"mode", fusion::to_string(u.mode)},
              {"groups", groups},
              {"inductor_groups", inductor},
              {"agreement", agreement},
              {"predicted", predicted},
              {"shares", shares_json(u.shares)},
              {"unknown_ops", unknown},
              {"notes", notes}};
}

}  // namespace

json to_json(const FuseReport& r) {
  json units = json::array();
  for (const auto& u : r.units) units.push_back(unit_json(u));
  const auto& d = r.device;
  return json{{"path", r.path},
              {"device",
               {{"name", d.name},
                {"memory_bandwidth_gbs", d.memory_bandwidth_gbs},
                {"fp32_tflops", d.fp32_tflops},
                {"tf32_tflops", d.tf32_tflops},
                {"bf16_tflops", d.bf16_tflops},
                {"launch_overhead_us", d.launch_overhead_us},
                {"graph_launch_overhead_us", d.graph_launch_overhead_us},
                {"source", d.source}}},
              {"units", units},
              {"warnings", to_json(r.warnings)}};
}

}  // namespace fxscope::report
