#include <cstdio>

#include <nlohmann/json.hpp>

#include "fxscope/report/group_comparison.h"

namespace fxscope::report {
namespace {

nlohmann::json optional_us(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json column_json(const MeasuredColumn& c) {
  if (!c.present) return {{"present", false}, {"why_absent", c.why_absent}};
  return {{"present", true},
          {"device", c.device},
          {"torch_version", c.torch_version},
          {"kernel_us", c.kernel_us},
          {"total_us", c.total_us},
          {"launches", c.launches},
          {"attributed_share", c.attributed_share},
          {"cuda_graph_share", c.cuda_graph_share},
          {"prediction_error",
           {{"groups", c.prediction_error.kernels},
            {"median_factor", c.prediction_error.median_factor},
            {"p90_factor", c.prediction_error.p90_factor},
            {"predicted_kernel_us", c.prediction_error.predicted_us},
            {"total_ratio", c.prediction_error.total_ratio()}}}};
}

// "prediction vs engine: per group 1.12x median, 1.90x p90 error over 45 groups; predicted
// kernel time 0.95x of measured".
std::string prediction_error_line(const char* backend, const MeasuredColumn& c) {
  if (!c.present || c.prediction_error.kernels == 0) return {};
  const auto& e = c.prediction_error;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  prediction vs %s: per group %.2fx median, %.2fx p90 error over %zu groups; "
                "predicted kernel time %.2fx of measured\n",
                backend, e.median_factor, e.p90_factor, e.kernels, e.total_ratio());
  return buf;
}

std::string cell(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", *v);
  return buf;
}

std::string cell(const MeasuredColumn& c, double MeasuredColumn::*member) {
  return c.present ? cell(std::optional<double>(c.*member)) : "-";
}

std::string column_source(const char* backend, const MeasuredColumn& c) {
  if (!c.present) return c.why_absent;
  std::string s = std::string(backend) + ": " + c.device;
  if (!c.torch_version.empty()) s += ", torch " + c.torch_version;
  char buf[48];
  std::snprintf(buf, sizeof buf, ", %.1f%% of kernel time attributed", 100.0 * c.attributed_share);
  s += buf;
  if (c.cuda_graph_share > 0) {
    std::snprintf(buf, sizeof buf, ", %.1f%% inside CUDA graphs", 100.0 * c.cuda_graph_share);
    s += buf;
  }
  return s;
}

}  // namespace

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const CompareRow& r : c.rows) {
    rows.push_back({{"graph", r.graph},
                    {"group", r.group},
                    {"kind", r.kind},
                    {"nodes", r.nodes},
                    {"dynamo_nodes", r.dynamo_nodes},
                    {"predicted_us", optional_us(r.predicted_us)},
                    {"engine_us", optional_us(r.engine_us)},
                    {"pytorch_us", optional_us(r.pytorch_us)}});
  }
  return {{"path", c.path},
          {"unit", c.unit},
          {"mode", c.mode},
          {"device", c.device},
          {"groups", rows},
          {"totals",
           {{"predicted",
             {{"kernel_us", c.predicted_kernel_us},
              {"total_us", c.predicted_total_us},
              {"launches", c.predicted_launches}}},
            {"engine", column_json(c.engine)},
            {"pytorch", column_json(c.pytorch)}}},
          {"notes", c.notes}};
}

std::string to_text(const Comparison& c) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "[%s] mode %s: predicted on %s\n", c.unit.c_str(),
                c.mode.c_str(), c.device.c_str());
  out += line;
  out += "  " + column_source("engine", c.engine) + "\n";
  out += "  " + column_source("pytorch", c.pytorch) + "\n";
  std::snprintf(line, sizeof line, "  %-4s %-44s %-10s %12s %10s %11s\n", "#", "group", "kind",
                "predicted us", "engine us", "pytorch us");
  out += line;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const CompareRow& r = c.rows[i];
    std::snprintf(line, sizeof line, "  %-4zu %-44.44s %-10.10s %12s %10s %11s\n", i,
                  r.group.c_str(), r.kind.c_str(), cell(r.predicted_us).c_str(),
                  cell(r.engine_us).c_str(), cell(r.pytorch_us).c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "  %-60s %12.2f %10s %11s\n", "kernel time of a call",
                c.predicted_kernel_us, cell(c.engine, &MeasuredColumn::kernel_us).c_str(),
                cell(c.pytorch, &MeasuredColumn::kernel_us).c_str());
  out += line;
  std::snprintf(line, sizeof line, "  %-60s %12.2f %10s %11s\n",
                "whole call (model: with launches; measured: CUDA events)", c.predicted_total_us,
                cell(c.engine, &MeasuredColumn::total_us).c_str(),
                cell(c.pytorch, &MeasuredColumn::total_us).c_str());
  out += line;
  std::snprintf(line, sizeof line, "  %-60s %12.0f %10s %11s\n", "launches", c.predicted_launches,
                cell(c.engine, &MeasuredColumn::launches).c_str(),
                cell(c.pytorch, &MeasuredColumn::launches).c_str());
  out += line;
  out += prediction_error_line("engine", c.engine);
  out += prediction_error_line("pytorch", c.pytorch);
  for (const auto& n : c.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace fxscope::report
