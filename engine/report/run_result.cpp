#include "fxscope/report/run_result.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

namespace fxscope::report {
namespace {

using nlohmann::json;

// Every accessor checks the type first: nlohmann's get<> throws on a mismatch, and a bad file
// must end in an Error naming the field, not in an exception.
class FieldReader {
 public:
  FieldReader(const json& object, std::string where) : j_(object), where_(std::move(where)) {}

  const std::string& where() const { return where_; }
  const Error* error() const { return error_.message.empty() ? nullptr : &error_; }

  std::string text(const char* key, bool required = false) {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return missing(key, required, "a string"), std::string();
    if (!it->is_string()) return fail(key, "a string"), std::string();
    return it->get<std::string>();
  }

  double number(const char* key, bool required = false) {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return missing(key, required, "a number"), 0.0;
    if (!it->is_number()) return fail(key, "a number"), 0.0;
    return it->get<double>();
  }

  bool flag(const char* key) {
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return false;
    if (!it->is_boolean()) return fail(key, "true or false"), false;
    return it->get<bool>();
  }

  std::vector<std::string> texts(const char* key) {
    std::vector<std::string> out;
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return out;
    if (!it->is_array()) return fail(key, "an array of strings"), out;
    for (const json& item : *it) {
      if (!item.is_string()) return fail(key, "an array of strings"), out;
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  std::array<int, 3> dim3(const char* key) {
    std::array<int, 3> out{};
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return out;
    if (!it->is_array() || it->size() != 3) return fail(key, "[x, y, z]"), out;
    for (std::size_t i = 0; i < 3; ++i) {
      if (!(*it)[i].is_number_integer()) return fail(key, "[x, y, z] of integers"), out;
      out[i] = (*it)[i].get<int>();
    }
    return out;
  }

  const json* array(const char* key) {
    const auto it = j_.find(key);
    if (it == j_.end() || !it->is_array()) return fail(key, "an array"), nullptr;
    return &*it;
  }

 private:
  void missing(const char* key, bool required, const char* expected) {
    if (required) fail(key, expected);
  }
  void fail(const char* key, const char* expected) {
    if (error_.message.empty()) {
      error_.message = where_ + ": \"" + key + "\" should be " + expected;
    }
  }

  const json& j_;
  std::string where_;
  Error error_;
};

Result<RunKernel> read_kernel(const json& j, const std::string& where) {
  if (!j.is_object()) return make_error(where + ": expected a kernel object");
  FieldReader r(j, where);
  RunKernel k;
  k.name = r.text("name", true);
  k.group = r.text("group");
  k.nodes = r.texts("nodes");
  k.dynamo_nodes = r.texts("dynamo_nodes");
  k.us = r.number("us", true);
  k.median_us = r.number("median_us");
  k.calls = r.number("calls");
  k.grid = r.dim3("grid");
  k.block = r.dim3("block");
  k.cuda_graph = r.flag("cuda_graph");
  if (const Error* e = r.error()) return *e;
  return k;
}

// The mode's optional `bandwidth` array, by kernel name.
Result<std::unordered_map<std::string, RunBandwidth>> read_bandwidth(const json& mode,
                                                                     bool against_copy_kernel,
                                                                     const std::string& where) {
  std::unordered_map<std::string, RunBandwidth> out;
  const auto it = mode.find("bandwidth");
  if (it == mode.end() || it->is_null()) return out;
  if (!it->is_array()) return make_error(where + ": \"bandwidth\" should be an array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    const std::string at = where + ".bandwidth[" + std::to_string(i) + "]";
    if (!e.is_object()) return make_error(at + ": expected a kernel's bandwidth object");
    FieldReader r(e, at);
    const std::string name = r.text("name", true);
    RunBandwidth b;
    b.bytes = r.number("bytes");
    b.gbps = r.number("gbps", true);
    b.us = r.number("us");
    b.share_of_copy = r.number("share_of_copy", true);
    b.held_to_target = r.flag("held_to_target");
    b.meets_target = r.flag("meets_target");
    b.alu_us = r.number("alu_us");
    // Older runs do not write it; their alu_us and us give the same figure.
    b.share_of_issue_rate = r.number("share_of_issue_rate");
    if (b.share_of_issue_rate == 0 && b.alu_us > 0 && b.us > 0) {
      b.share_of_issue_rate = b.alu_us / b.us;
    }
    b.same_size_copy_us = r.number("same_size_copy_us");
    b.share_of_same_size_copy = r.number("share_of_same_size_copy");
    b.same_size_copy_kernel_us = r.number("same_size_copy_kernel_us");
    b.share_of_same_size_copy_kernel = r.number("share_of_same_size_copy_kernel");
    b.reference_place = r.text("reference_place");
    b.alone_copy_kernel_us = r.number("alone_copy_kernel_us");
    if (against_copy_kernel) {
      b.judged_share = b.share_of_same_size_copy_kernel;
      const bool in_place = !b.reference_place.empty() && !b.reference_place.starts_with("alone");
      b.judged_against = in_place ? "copy kernel in its place" : "copy kernel";
    } else if (b.same_size_copy_us > 0) {
      b.judged_share = b.share_of_same_size_copy;
      b.judged_against = "cudaMemcpy";
    } else {
      b.judged_share = b.share_of_copy;
      b.judged_against = "256 MiB copy";
    }
    const std::string bound = r.text("bound");
    if (!bound.empty() && bound != "compute" && bound != "memory") {
      return make_error(at + ": \"bound\" should be \"compute\" or \"memory\", not \"" + bound +
                        "\"");
    }
    b.compute_bound = bound == "compute";
    if (const Error* err = r.error()) return *err;
    out[name] = b;
  }
  return out;
}

Result<RunMode> read_mode(const json& j, bool against_copy_kernel, const std::string& where) {
  if (!j.is_object()) return make_error(where + ": expected a mode object");
  FieldReader r(j, where);
  RunMode m;
  m.mode = r.text("mode", true);
  m.total_us = r.number("total_us", true);
  m.total_min_us = r.number("total_min_us");
  m.total_max_us = r.number("total_max_us");
  m.kernel_us = r.number("kernel_us");
  m.attributed_us = r.number("attributed_us");
  m.dynamo_us = r.number("dynamo_us");
  m.launches = r.number("launches");
  m.cuda_graph_launches = r.number("cuda_graph_launches");
  const double repeats = r.number("repeats");
  m.repeats = repeats > 0 ? static_cast<std::size_t>(repeats) : 0;
  const json* kernels = r.array("kernels");
  if (const Error* e = r.error()) return *e;
  auto bandwidth = read_bandwidth(j, against_copy_kernel, where);
  if (!bandwidth) return bandwidth.error();
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    auto kernel = read_kernel((*kernels)[i], where + ".kernels[" + std::to_string(i) + "]");
    if (!kernel) return kernel.error();
    if (const auto b = bandwidth->find(kernel->name); b != bandwidth->end()) {
      kernel->bandwidth = b->second;
    }
    m.kernels.push_back(std::move(*kernel));
  }
  return m;
}

}  // namespace

const RunMode* RunResult::find_mode(std::string_view name) const {
  for (const RunMode& m : modes) {
    if (m.mode == name) return &m;
  }
  return nullptr;
}

Result<RunResult> parse_run_result(std::string_view text, const std::string& where) {
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error(where + ": not JSON (expected `fxscope-cli run --json`)");
  if (!j.is_object()) return make_error(where + ": expected a JSON object with \"modes\"");
  FieldReader r(j, where);
  RunResult run;
  run.backend = r.text("backend");
  run.device = r.text("device");
  run.unit = r.text("unit");
  run.torch_version = r.text("torch_version");
  if (const auto tf32 = j.find("allow_tf32"); tf32 != j.end() && tf32->is_boolean()) {
    run.allow_tf32 = tf32->get<bool>();
  }
  const json* modes = r.array("modes");
  if (const Error* e = r.error()) return *e;
  // What the bandwidth target judged against (absent: cudaMemcpy).
  bool against_copy_kernel = false;
  if (const auto t = j.find("bandwidth_target"); t != j.end() && t->is_object()) {
    const auto ref = t->find("reference");
    against_copy_kernel =
        ref != t->end() && ref->is_string() && ref->get<std::string>() == "same_size_copy_kernel";
  }
  for (std::size_t i = 0; i < modes->size(); ++i) {
    auto mode =
        read_mode((*modes)[i], against_copy_kernel, where + ": modes[" + std::to_string(i) + "]");
    if (!mode) return mode.error();
    run.modes.push_back(std::move(*mode));
  }
  return run;
}

Result<RunResult> read_run_result(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read the run JSON");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_run_result(text.str(), path);
}

double RunMode::cuda_graph_share() const {
  if (kernel_us <= 0) return 0.0;
  double in_graphs = 0;
  for (const RunKernel& k : kernels) {
    if (k.cuda_graph) in_graphs += k.us;
  }
  return std::min(1.0, in_graphs / kernel_us);
}

}  // namespace fxscope::report
