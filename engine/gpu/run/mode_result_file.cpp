// The file a mode's child process hands its parent: every field of the run as measured (not the
// JSON the CLI prints, which rounds nothing but drops the timeline's layout), and the outputs'
// bytes, as CBOR (binary strings, and infinities survive, which JSON text would turn to null).

#include <cstring>
#include <fstream>

#include <iterator>
#include <nlohmann/json.hpp>

#include "fxscope/gpu/isolated_run.h"

// nlohmann finds these by argument-dependent lookup: they live in their types' namespace. A
// kernel's bandwidth verdict is the parent's (EngineMode::bandwidth), so it does not travel.
namespace fxscope::report {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunLaunch, name, start, end, grid, block, stream, graph)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunKernel, name, group, nodes, dynamo_nodes, us, median_us,
                                   calls, grid, block, cuda_graph)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RunMode, mode, total_us, total_min_us, total_max_us, repeats,
                                   kernel_us, attributed_us, dynamo_us, launches,
                                   cuda_graph_launches, kernels, timeline)

}  // namespace fxscope::report

namespace fxscope::gpu {

// Samples travel as the bytes of their doubles: 2,048 a value over thousands of values.
void to_json(nlohmann::json& j, const ValueDigest& d) {
  const auto* first = reinterpret_cast<const std::uint8_t*>(d.samples.data());
  j = {{"node", d.node},
       {"step", d.step},
       {"group", d.group},
       {"group_name", d.group_name},
       {"kernel", d.kernel},
       {"dtype", d.dtype},
       {"computed_in", d.computed_in},
       {"numel", d.numel},
       {"sizes", d.sizes},
       {"max_abs", d.max_abs},
       {"sum", d.sum},
       {"abs_sum", d.abs_sum},
       {"terms_abs_sum", d.terms_abs_sum},
       {"nonfinite", d.nonfinite},
       {"samples", nlohmann::json::binary({first, first + d.samples.size() * sizeof(double)})}};
}

void from_json(const nlohmann::json& j, ValueDigest& d) {
  j.at("node").get_to(d.node);
  j.at("step").get_to(d.step);
  j.at("group").get_to(d.group);
  j.at("group_name").get_to(d.group_name);
  j.at("kernel").get_to(d.kernel);
  j.at("dtype").get_to(d.dtype);
  j.at("computed_in").get_to(d.computed_in);
  j.at("numel").get_to(d.numel);
  j.at("sizes").get_to(d.sizes);
  j.at("max_abs").get_to(d.max_abs);
  j.at("sum").get_to(d.sum);
  j.at("abs_sum").get_to(d.abs_sum);
  d.terms_abs_sum = j.value("terms_abs_sum", 0.0);
  j.at("nonfinite").get_to(d.nonfinite);
  const auto& bytes = j.at("samples").get_binary();
  d.samples.resize(bytes.size() / sizeof(double));
  std::memcpy(d.samples.data(), bytes.data(), d.samples.size() * sizeof(double));
}

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Coverage, ops, ran, missing)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelBandwidth, name, group, bytes, us, gbps, share_of_copy,
                                   same_size_copy_us, share_of_same_size_copy,
                                   same_size_copy_kernel_us, share_of_same_size_copy_kernel,
                                   alone_copy_kernel_us, reference_place, held_to_target,
                                   meets_target, alu_us, compute_bound, share_of_issue_rate, step)
// The comparison with eager (max_rel_err, rel_errs, tolerance, flagged) is the parent's.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EngineMode, measured, ran, error, coverage, peak_bytes,
                                   unplanned_bytes, host_launch_us, cuda_graph, picks, bandwidth,
                                   values)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EngineRun, device, unit, cuda_version, cudnn, copy_gbps,
                                   alu_slots_per_us, empty_kernel_us, coverage, modes, backward,
                                   notes)

namespace {

constexpr int kFormat = 2;

nlohmann::json outputs_json(const std::vector<HostOutput>& outputs) {
  nlohmann::json out = nlohmann::json::array();
  for (const HostOutput& o : outputs) {
    const auto* first = reinterpret_cast<const std::uint8_t*>(o.bytes.data());
    out.push_back({{"node", o.node},
                   {"meta", o.meta.dtype.empty() ? "" : o.meta.to_string()},
                   {"computed_in", o.computed_in},
                   {"not_run", o.not_run},
                   {"bytes", nlohmann::json::binary({first, first + o.bytes.size()})}});
  }
  return out;
}

Result<std::vector<HostOutput>> outputs_from(const nlohmann::json& j, const std::string& where) {
  std::vector<HostOutput> out;
  for (const auto& o : j) {
    HostOutput h;
    const std::string meta = o.at("meta").get<std::string>();
    if (!meta.empty()) {
      auto parsed = graph::parse_tensor_meta(meta);
      if (!parsed) return make_error(where + ": an output's meta '" + meta + "' does not parse");
      h.meta = std::move(*parsed);
    }
    if (const auto c = o.find("computed_in"); c != o.end() && c->is_string())
      h.computed_in = c->get<std::string>();
    if (const auto c = o.find("node"); c != o.end() && c->is_string())
      h.node = c->get<std::string>();
    if (const auto c = o.find("not_run"); c != o.end() && c->is_string())
      h.not_run = c->get<std::string>();
    const auto& bytes = o.at("bytes").get_binary();
    h.bytes.resize(bytes.size());
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<std::uint8_t*>(h.bytes.data()));
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace

std::string write_mode_result(const std::string& path, const ModeResult& result) {
  nlohmann::json j = {{"format", kFormat}};
  if (!result.fatal_error.empty()) {
    j["fatal_error"] = result.fatal_error;
  } else {
    j["run"] = result.run;
    j["outputs"] = nlohmann::json::array();
    for (const auto& o : result.outputs) j["outputs"].push_back(outputs_json(o));
    j["backward_outputs"] = nlohmann::json::array();
    for (const auto& o : result.backward_outputs) {
      j["backward_outputs"].push_back(outputs_json(o));
    }
    j["reference_outputs"] = outputs_json(result.reference_outputs);
    j["backward_reference_outputs"] = outputs_json(result.backward_reference_outputs);
  }
  const std::vector<std::uint8_t> bytes = nlohmann::json::to_cbor(j);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  return out ? "" : path + ": cannot write the mode's result";
}

Result<ModeResult> read_mode_result(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": no result file");
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
  const nlohmann::json j = nlohmann::json::from_cbor(bytes, true, false);
  if (j.is_discarded() || !j.is_object() || j.value("format", 0) != kFormat) {
    return make_error(path + ": not a mode result (" + std::to_string(bytes.size()) + " bytes)");
  }
  ModeResult r;
  try {
    if (j.contains("fatal_error")) {
      r.fatal_error = j.at("fatal_error").get<std::string>();
      return r;
    }
    r.run = j.at("run").get<EngineRun>();
    for (const auto& o : j.at("outputs")) {
      auto outputs = outputs_from(o, path);
      if (!outputs) return outputs.error();
      r.outputs.push_back(std::move(*outputs));
    }
    for (const auto& o : j.at("backward_outputs")) {
      auto outputs = outputs_from(o, path);
      if (!outputs) return outputs.error();
      r.backward_outputs.push_back(std::move(*outputs));
    }
    if (const auto ref = j.find("reference_outputs"); ref != j.end()) {
      auto outputs = outputs_from(*ref, path);
      if (!outputs) return outputs.error();
      r.reference_outputs = std::move(*outputs);
    }
    if (const auto ref = j.find("backward_reference_outputs"); ref != j.end()) {
      auto outputs = outputs_from(*ref, path);
      if (!outputs) return outputs.error();
      r.backward_reference_outputs = std::move(*outputs);
    }
  } catch (const nlohmann::json::exception& e) {
    return make_error(path + ": a mode result without the expected fields (" + e.what() + ")");
  }
  if (r.outputs.size() != r.run.modes.size() ||
      r.backward_outputs.size() != r.run.backward.size()) {
    return make_error(path + ": " + std::to_string(r.run.modes.size()) + " modes but outputs of " +
                      std::to_string(r.outputs.size()));
  }
  return r;
}

}  // namespace fxscope::gpu
