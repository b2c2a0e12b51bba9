#include "fxscope/cost/calibration.h"

#include <array>
#include <nlohmann/json.hpp>
#include <utility>

namespace fxscope::cost {

// The JSON text of engine/cost/data/calibration_h100.json, compiled in (calibration_data.cpp.in).
extern const char* const kBuiltinCalibrationJson;

namespace {

constexpr std::array<std::pair<KernelClass, std::string_view>, 11> kClassNames = {{
    {KernelClass::pointwise, "pointwise"},
    {KernelClass::reduction, "reduction"},
    {KernelClass::persistent_reduction, "persistent_reduction"},
    {KernelClass::gemm, "gemm"},
    {KernelClass::conv, "conv"},
    {KernelClass::grouped_conv, "grouped_conv"},
    {KernelClass::attention, "attention"},
    {KernelClass::copy, "copy"},
    {KernelClass::transpose, "transpose"},
    {KernelClass::other, "other"},
    {KernelClass::host, "host"},
}};

Result<double> number_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || it->get<double>() < 0) {
    return make_error(where + ": expected a non-negative number '" + key + "'");
  }
  return it->get<double>();
}

}  // namespace

std::string_view to_string(KernelClass c) {
  for (const auto& [value, name] : kClassNames) {
    if (value == c) return name;
  }
  return "other";
}

std::optional<KernelClass> parse_kernel_class(std::string_view name) {
  for (const auto& [value, text] : kClassNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

const ClassCurve* Calibration::find(KernelClass kernel_class, std::string_view precision,
                                    std::string_view shape) const {
  // A curve's shape applies where it is SHAPE itself or SHAPE's leading components.
  const auto covers = [shape](const std::string& prefix) {
    return prefix.empty() || shape == prefix ||
           (shape.starts_with(prefix) && shape[prefix.size()] == '/');
  };
  // The longest prefix wins; of two equally long, the one fitted to PRECISION. The shape says
  // more about which kernel the library picks than the precision does: a depthwise convolution's
  // bucket fitted at fp32 prices an fp16 one better than all fp16 convolutions together.
  const ClassCurve* best = nullptr;
  for (const auto& c : curves) {
    if (c.kernel_class != kernel_class || !covers(c.shape)) continue;
    if (c.precision != precision && c.precision != "any") continue;
    if (!best || c.shape.size() > best->shape.size() ||
        (c.shape.size() == best->shape.size() && c.precision == precision)) {
      best = &c;
    }
  }
  return best;
}

Result<Calibration> parse_calibration(std::string_view json_text, const std::string& name) {
  const auto j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return make_error(name + ": not a JSON object");
  Calibration cal;
  cal.measured_on = j.value("measured_on", "");
  cal.device_spec = j.value("device_spec", "");
  cal.source = j.value("source", "");
  const auto curves = j.find("curves");
  if (curves == j.end() || !curves->is_array()) {
    return make_error(name + ": expected an array 'curves'");
  }
  for (std::size_t i = 0; i < curves->size(); ++i) {
    const auto& c = (*curves)[i];
    const std::string where = name + ": curves[" + std::to_string(i) + "]";
    if (!c.is_object()) return make_error(where + ": expected an object");
    const auto cls = parse_kernel_class(c.value("class", ""));
    if (!cls) {
      return make_error(where + ": unknown class '" + c.value("class", "") +
                        "' (expected pointwise, reduction, persistent_reduction, gemm, conv, "
                        "grouped_conv, attention, copy, transpose, other or host)");
    }
    ClassCurve curve;
    curve.kernel_class = *cls;
    curve.precision = c.value("precision", "any");
    curve.shape = c.value("shape", "");
    auto latency = number_field(c, "latency_us", where);
    auto memory = number_field(c, "memory_efficiency", where);
    auto compute = number_field(c, "compute_efficiency", where);
    auto issue = number_field(c, "issue_efficiency", where);
    for (const auto* r : {&latency, &memory, &compute, &issue}) {
      if (!*r) return r->error();
    }
    curve.latency_us = *latency;
    curve.memory_efficiency = *memory;
    curve.compute_efficiency = *compute;
    curve.issue_efficiency = *issue;
    curve.saturating_rows = c.value("saturating_rows", 0.0);
    curve.additive = c.value("combine", "max") == "sum";
    curve.samples = c.value("samples", std::size_t{0});
    cal.curves.push_back(std::move(curve));
  }
  return cal;
}

const Calibration& builtin_calibration() {
  // The compiled-in text is checked by a test; should it ever fail to parse, the model runs on
  // the device's fixed efficiencies (an empty calibration) rather than abort.
  static const Calibration cal = [] {
    auto parsed = parse_calibration(kBuiltinCalibrationJson, "calibration_h100.json");
    return parsed ? std::move(*parsed) : Calibration{};
  }();
  return cal;
}

}  // namespace fxscope::cost
