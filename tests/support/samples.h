#pragma once
// Paths of the real captured logs in sample_graphs/ and of hand-made test inputs in tests/data/.

#include <string>

namespace fxscope::test {

inline std::string sample(const std::string& name) {
  return std::string(FXSCOPE_SAMPLES_DIR) + "/" + name;
}

inline std::string data(const std::string& name) {
  return std::string(FXSCOPE_TEST_DATA_DIR) + "/" + name;
}

}  // namespace fxscope::test
