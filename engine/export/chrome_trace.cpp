#include "fxscope/export/chrome_trace.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace fxscope::exporting {
namespace {

nlohmann::json metadata_event(const char* what, std::size_t pid, std::size_t tid,
                              const std::string& name) {
  return {{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

// Where a measured kernel ran and how it was attributed, for the event's details pane.
nlohmann::json kernel_args(const report::RunKernel& kernel) {
  return {{"calls_per_repeat", kernel.calls},
          {"group", kernel.group},
          {"nodes", kernel.nodes},
          {"grid", kernel.grid},
          {"block", kernel.block},
          {"cuda_graph", kernel.cuda_graph}};
}

// MODE's first call as CUPTI timed it, one thread per stream, from 0 so that the modes line up.
void add_launches(const report::RunMode& mode, std::size_t p, nlohmann::json& events) {
  const std::uint64_t origin = mode.timeline.front().start;
  std::set<std::uint32_t> streams;
  for (const report::RunLaunch& launch : mode.timeline) {
    if (streams.insert(launch.stream).second) {
      events.push_back(metadata_event("thread_name", p, launch.stream,
                                      "stream " + std::to_string(launch.stream)));
    }
    events.push_back(
        {{"ph", "X"},
         {"cat", "measured"},
         {"name", launch.name},
         {"pid", p},
         {"tid", launch.stream},
         {"ts", static_cast<double>(launch.start - origin) / 1000.0},
         {"dur", launch.us()},
         {"args", {{"grid", launch.grid}, {"block", launch.block}, {"graph", launch.graph}}}});
  }
}

}  // namespace

nlohmann::json chrome_trace_from_run(const report::RunResult& run) {
  nlohmann::json events = nlohmann::json::array();
  const std::string device = run.device.empty() ? std::string("GPU") : run.device;
  const std::string backend = run.backend.empty() ? std::string() : run.backend + ": ";
  for (std::size_t p = 0; p < run.modes.size(); ++p) {
    const report::RunMode& mode = run.modes[p];
    if (!mode.timeline.empty()) {
      events.push_back(metadata_event("process_name", p, 0,
                                      "measured " + mode.mode + " on " + device + " (" + backend +
                                          "the first call's kernels)"));
      add_launches(mode, p, events);
      continue;
    }
    // A saved run keeps each kernel's time per repeat, not its start times: the kernels are laid
    // end to end in the run's order, which the process name says.
    events.push_back(metadata_event("process_name", p, 0,
                                    "measured " + mode.mode + " on " + device + " (" + backend +
                                        "kernel time per repeat, laid end to end)"));
    events.push_back(metadata_event("thread_name", p, 0, "GPU kernels"));
    double ts = 0;
    for (const report::RunKernel& kernel : mode.kernels) {
      events.push_back({{"ph", "X"},
                        {"cat", "measured"},
                        {"name", kernel.name},
                        {"pid", p},
                        {"tid", 0},
                        {"ts", ts},
                        {"dur", kernel.us},
                        {"args", kernel_args(kernel)}});
      ts += kernel.us;
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"measured", true}, {"unit", run.unit}, {"device", run.device}}}};
}

nlohmann::json predicted_chrome_trace(const PlannedUnit& planned) {
  nlohmann::json events = nlohmann::json::array();
  const std::string mode(fusion::to_string(planned.report.mode));
  events.push_back(metadata_event(
      "process_name", 0, 0,
      "predicted " + mode + " on " + planned.device.name + " (fxscope cost model, no GPU run)"));
  double ts = 0;
  for (std::size_t g = 0; g < planned.report.graphs.size(); ++g) {
    const auto& graph_report = planned.report.graphs[g];
    const auto& fusion = graph_report.fusion;
    events.push_back(metadata_event("thread_name", 0, g, fusion.where));
    for (std::size_t k = 0; k < fusion.ours.groups.size(); ++k) {
      const auto& group = fusion.ours.groups[k];
      const cost::KernelCost cost =
          k < graph_report.ours.kernels.size() ? graph_report.ours.kernels[k] : cost::KernelCost{};
      nlohmann::json nodes = nlohmann::json::array();
      for (graph::NodeId id : group.nodes) {
        if (id < fusion.post_grad.size()) nodes.push_back(fusion.post_grad.node(id).name);
      }
      events.push_back({{"ph", "X"},
                        {"cat", "predicted"},
                        {"name", group.name},
                        {"pid", 0},
                        {"tid", g},
                        {"ts", ts},
                        {"dur", cost.total_us},
                        {"args",
                         {{"predicted", true},
                          {"kind", std::string(fusion::to_string(group.kind))},
                          {"nodes", std::move(nodes)},
                          {"bytes", group.bytes_read + group.bytes_written},
                          {"flops", group.flops},
                          {"memory_bound", cost.memory_bound},
                          {"device_us", cost.device_us},
                          {"launch_overhead_us", cost.overhead_us}}}});
      ts += cost.total_us;
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"predicted", true},
            {"source", planned.log_path},
            {"compile_id", planned.compile_id},
            {"mode", mode},
            {"device", planned.device.name}}}};
}

}  // namespace fxscope::exporting
