#pragma once
// PyTorch's own counters for a bundled log (torch._dynamo.utils.counters, which the capture
// scripts write to expected.json beside the log): what fxscope's counts are checked against.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace fxscope::test {

// The "counters" object of DIR/expected.json; an empty object where it has none.
inline nlohmann::json pytorch_counters(const std::filesystem::path& dir) {
  std::ifstream in(dir / "expected.json");
  REQUIRE(in);
  return nlohmann::json::parse(in).value("counters", nlohmann::json::object());
}

// COUNTERS[GROUP][NAME], 0 where PyTorch never counted it.
inline int pytorch_counter(const nlohmann::json& counters, const char* group, const char* name) {
  if (!counters.contains(group) || !counters[group].contains(name)) return 0;
  return counters[group][name].get<int>();
}

}  // namespace fxscope::test
