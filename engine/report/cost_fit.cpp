#include "fxscope/report/cost_fit.h"

#include <map>
#include <tuple>
#include <utility>

#include "fxscope/core/text.h"
#include "fxscope/trace/log_file.h"

namespace fxscope::report {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // log, mode, graph

std::vector<std::string_view> split_csv_fields(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = s.find(sep, begin);
    out.push_back(s.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return out;
    begin = end + 1;
  }
}

// A CSV of plain fields (no quoting: the extractor writes none) as its header's columns.
class CsvTable {
 public:
  static Result<CsvTable> parse(std::string_view text, const std::string& path,
                                const std::vector<std::string>& required) {
    CsvTable t;
    t.path_ = path;
    std::size_t line_no = 0;
    for (std::string_view line : split_csv_fields(text, '\n')) {
      ++line_no;
      if (text::trim(line).empty()) continue;
      std::vector<std::string> fields;
      for (std::string_view f : split_csv_fields(line, ',')) fields.emplace_back(f);
      if (t.columns_.empty()) {
        for (std::size_t i = 0; i < fields.size(); ++i) t.columns_[fields[i]] = i;
        for (const auto& name : required) {
          if (!t.columns_.contains(name)) {
            return make_error(path + ": no column '" + name + "' in the header");
          }
        }
        continue;
      }
      if (fields.size() != t.columns_.size()) {
        return make_error(path + ":" + std::to_string(line_no) + ": expected " +
                          std::to_string(t.columns_.size()) + " fields, found " +
                          std::to_string(fields.size()));
      }
      t.rows_.push_back(std::move(fields));
      t.lines_.push_back(line_no);
    }
    return t;
  }

  std::size_t size() const { return rows_.size(); }
  bool has(const std::string& column) const { return columns_.contains(column); }
  const std::string& at(std::size_t row, const std::string& column) const {
    return rows_[row][columns_.at(column)];
  }
  // The field as a number; an empty field is nullopt, a malformed one an Error.
  Result<std::optional<double>> number(std::size_t row, const std::string& column) const {
    const std::string& f = at(row, column);
    if (f.empty()) return std::optional<double>{};
    const auto v = text::parse_double(f);
    if (!v) {
      return make_error(path_ + ":" + std::to_string(lines_[row]) + ": column " + column +
                        ": expected a number, found '" + f + "'");
    }
    return std::optional<double>{*v};
  }

 private:
  std::string path_;
  std::map<std::string, std::size_t, std::less<>> columns_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<std::size_t> lines_;
};

Result<CsvTable> read_csv(const std::string& path, const std::vector<std::string>& required) {
  auto file = trace::LogFile::open(path);
  if (!file) return file.error();
  return CsvTable::parse(file->text(), path, required);
}

cost::Precision parse_precision(std::string_view p) {
  if (p == "bf16") return cost::Precision::bf16;
  if (p == "fp16") return cost::Precision::fp16;
  if (p == "tf32") return cost::Precision::tf32;
  if (p == "fp64") return cost::Precision::fp64;
  return cost::Precision::fp32;
}

// The op-class share WorkClass of a kernel class: what predict_kernel's peaks depend on.
cost::WorkClass work_class_of(cost::KernelClass c) {
  switch (c) {
    case cost::KernelClass::gemm:
    case cost::KernelClass::conv:
    case cost::KernelClass::grouped_conv:
    case cost::KernelClass::attention:
      return cost::WorkClass::gemm_conv;
    case cost::KernelClass::reduction:
    case cost::KernelClass::persistent_reduction:
      return cost::WorkClass::reduction;
    case cost::KernelClass::pointwise:
    case cost::KernelClass::copy:
    case cost::KernelClass::transpose:
      return cost::WorkClass::elementwise;
    case cost::KernelClass::other:
    case cost::KernelClass::host:
      break;
  }
  return cost::WorkClass::other;
}

}  // namespace

Result<FitData> read_fit_data(const std::string& prefix) {
  FitData data;
  const std::string kernels_path = prefix + "_kernels.csv.gz";
  auto kernels =
      read_csv(kernels_path, {"log", "mode", "graph", "group", "kernel_class", "precision", "bytes",
                              "flops", "alu_slots", "measured_us"});
  if (!kernels) return kernels.error();
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    FitKernel k;
    k.log = kernels->at(i, "log");
    k.mode = kernels->at(i, "mode");
    k.graph = kernels->at(i, "graph");
    k.work.name = kernels->at(i, "group");
    const auto cls = cost::parse_kernel_class(kernels->at(i, "kernel_class"));
    if (!cls) {
      return make_error(kernels_path + ": row " + std::to_string(i + 1) + ": unknown class '" +
                        kernels->at(i, "kernel_class") + "'");
    }
    k.work.kernel_class = *cls;
    k.work.work_class = work_class_of(*cls);
    k.work.precision = parse_precision(kernels->at(i, "precision"));
    // The shape class (report/kernel_shape.h), where the data set has the column.
    if (kernels->has("shape")) k.work.shape = kernels->at(i, "shape");
    if (kernels->has("numel")) {
      auto rows = kernels->number(i, "numel");
      if (!rows) return rows.error();
      k.work.rows = rows->value_or(0.0);
    }
    for (const auto& [column, field] : {std::pair{"bytes", &cost::KernelWork::bytes},
                                        std::pair{"flops", &cost::KernelWork::flops},
                                        std::pair{"alu_slots", &cost::KernelWork::alu_slots}}) {
      auto v = kernels->number(i, column);
      if (!v) return v.error();
      k.work.*field = v->value_or(0.0);
    }
    auto measured = kernels->number(i, "measured_us");
    if (!measured) return measured.error();
    k.measured_us = *measured;
    data.kernels.push_back(std::move(k));
  }
  const std::string totals_path = prefix + "_totals.csv";
  auto totals = read_csv(totals_path, {"log", "mode", "graph", "device", "kernel_us"});
  if (!totals) return totals.error();
  for (std::size_t i = 0; i < totals->size(); ++i) {
    FitGraph g{totals->at(i, "log"), totals->at(i, "mode"), totals->at(i, "graph"),
               totals->at(i, "device"), 0.0};
    auto us = totals->number(i, "kernel_us");
    if (!us) return us.error();
    g.kernel_us = us->value_or(0.0);
    data.graphs.push_back(std::move(g));
  }
  return data;
}

std::set<std::string> training_logs(const FitData& data) {
  std::set<std::string> logs;
  for (const FitKernel& k : data.kernels) logs.insert(k.log);
  std::set<std::string> training;
  bool take = true;
  for (const std::string& log : logs) {
    if (take) training.insert(log);
    take = !take;
  }
  return training;
}

std::vector<FitCheck> check_fit(const FitData& data, const cost::DeviceSpec& device,
                                const std::set<std::string>& training_logs) {
  std::map<Key, std::vector<cost::PredictedMeasured>> pairs;
  std::map<Key, double> predicted;
  for (const auto& k : data.kernels) {
    if (training_logs.contains(k.log)) continue;
    const Key key{k.log, k.mode, k.graph};
    // Kernel time alone: the engine's CUPTI time holds no launch overhead.
    const double us = cost::predict_kernel(k.work, device, cost::LaunchMode::cuda_graph).device_us;
    predicted[key] += us;
    if (k.measured_us && *k.measured_us > 0) pairs[key].push_back({us, *k.measured_us});
  }
  std::vector<FitCheck> out;
  for (const auto& g : data.graphs) {
    const Key key{g.log, g.mode, g.graph};
    if (training_logs.contains(g.log) || !predicted.contains(key)) continue;
    out.push_back(
        {g.log, g.mode, g.graph, cost::prediction_error(pairs[key], predicted[key], g.kernel_us)});
  }
  return out;
}

}  // namespace fxscope::report
