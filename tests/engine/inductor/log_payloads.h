#pragma once
// Test helper: the payloads of one record kind in a sample's TORCH_TRACE log, read the simplest
// way (the inductor tests must not depend on engine/trace, which reads logs for real).

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fxscope::test {

// One record's payload and its compile id.
struct Payload {
  int frame_id = -1;
  int frame_compile_id = -1;
  std::string text;  // payload lines with their leading tab stripped, joined by '\n'
};

// Payloads of records of KIND (a record kind or an artifact name) in the log in DIRECTORY.
inline std::vector<Payload> log_payloads(const std::string& directory, const std::string& kind) {
  std::string path;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.path().filename().string().rfind("dedicated_log_torch_trace_", 0) == 0) {
      path = entry.path().string();
    }
  }
  std::vector<Payload> out;
  std::ifstream in(path);
  std::string line;
  Payload* current = nullptr;  // the record whose payload lines are being read
  bool first_line = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.front() == '\t') {
      if (current == nullptr) continue;
      if (!first_line) current->text += '\n';
      current->text += line.substr(1);
      first_line = false;
      continue;
    }
    current = nullptr;
    const std::size_t brace = line.find('{');
    if (brace == std::string::npos) continue;
    const auto record = nlohmann::json::parse(line.substr(brace), nullptr, false);
    if (record.is_discarded() || !record.is_object()) continue;
    const bool match =
        record.contains(kind) || (record.contains("artifact") && record["artifact"].is_object() &&
                                  record["artifact"].value("name", "") == kind);
    if (!match) continue;
    Payload payload;
    payload.frame_id = record.value("frame_id", -1);
    payload.frame_compile_id = record.value("frame_compile_id", -1);
    out.push_back(std::move(payload));
    current = &out.back();
    first_line = true;
  }
  return out;
}

}  // namespace fxscope::test
