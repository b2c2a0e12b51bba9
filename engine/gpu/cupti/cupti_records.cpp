#include "fxscope/gpu/cupti_records.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace fxscope::gpu {
namespace {

std::array<int, 3> dim3_of(const nlohmann::json& j) {
  std::array<int, 3> d{1, 1, 1};
  if (!j.is_array()) return d;
  for (std::size_t i = 0; i < 3 && i < j.size(); ++i) d[i] = j[i].get<int>();
  return d;
}

KernelRecord kernel_of(const nlohmann::json& j) {
  KernelRecord k;
  k.name = j.value("name", "");
  k.start = j.value("start", std::uint64_t{0});
  k.end = j.value("end", std::uint64_t{0});
  k.grid = dim3_of(j.value("grid", nlohmann::json()));
  k.block = dim3_of(j.value("block", nlohmann::json()));
  k.registers = j.value("registers", 0u);
  k.static_smem = j.value("static_smem", 0);
  k.dynamic_smem = j.value("dynamic_smem", 0);
  k.stream = j.value("stream", 0u);
  k.correlation = j.value("correlation", 0u);
  k.graph = j.value("graph", 0u);
  k.graph_node = j.value("graph_node", std::uint64_t{0});
  return k;
}

}  // namespace

std::uint64_t CuptiRecords::launched_at(const KernelRecord& kernel) const {
  const auto it = launch_start.find(kernel.correlation);
  return it == launch_start.end() ? kernel.start : it->second;
}

Result<CuptiRecords> parse_cupti_lines(std::string_view text, const std::string& where) {
  CuptiRecords r;
  // NVTX ids pair a range's start record with its end record.
  std::unordered_map<std::uint64_t, MarkerRange> open;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("kind")) {
      return make_error(where + " line " + std::to_string(line_no) +
                        ": expected a JSON object with a \"kind\"");
    }
    const std::string kind = j["kind"].get<std::string>();
    if (kind == "kernel") {
      r.kernels.push_back(kernel_of(j));
    } else if (kind == "memcpy" || kind == "memset") {
      r.copies.push_back({kind, j.value("bytes", std::uint64_t{0}),
                          j.value("start", std::uint64_t{0}), j.value("end", std::uint64_t{0}),
                          j.value("stream", 0u), j.value("correlation", 0u), j.value("graph", 0u)});
    } else if (kind == "launch") {
      const auto c = j.value("correlation", 0u);
      const auto s = j.value("start", std::uint64_t{0});
      auto [it, inserted] = r.launch_start.emplace(c, s);
      if (!inserted) it->second = std::min(it->second, s);
    } else if (kind == "marker") {
      const std::string flag = j.value("flag", "");
      const auto id = j.value("id", std::uint64_t{0});
      const auto ts = j.value("ts", std::uint64_t{0});
      if (flag == "start") {
        open[id] = {j.value("name", ""), ts, ts};
      } else if (flag == "end") {
        const auto it = open.find(id);
        if (it == open.end()) continue;
        it->second.end = ts;
        r.ranges.push_back(std::move(it->second));
        open.erase(it);
      }
    }
  }
  const auto by_start = [](const auto& a, const auto& b) { return a.start < b.start; };
  std::sort(r.kernels.begin(), r.kernels.end(), by_start);
  std::sort(r.ranges.begin(), r.ranges.end(), by_start);
  return r;
}

Result<CuptiRecords> read_cupti_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error(path + ": cannot read the CUPTI records");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_cupti_lines(ss.str(), path);
}

}  // namespace fxscope::gpu
