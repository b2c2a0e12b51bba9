#pragma once
// The .log file of a sample in sample_graphs/, for tests that copy it into a folder of ranks.

#include <filesystem>
#include <string>

#include "samples.h"

namespace fxscope::test {

// Empty when the sample holds no .log file.
inline std::string sample_log_file(const std::string& name) {
  for (const auto& e : std::filesystem::directory_iterator(sample(name))) {
    if (e.path().extension() == ".log") return e.path().string();
  }
  return {};
}

}  // namespace fxscope::test
