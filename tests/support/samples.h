#pragma once
// Paths of the real captured logs in sample_graphs/ and of hand-made test inputs in tests/data/.

#include <cstdlib>
#include <string>

namespace fxscope::test {

// FXSCOPE_SAMPLE_DIR names another sample_graphs/: the GPU machine runs copied test binaries in a
// tree whose path differs from the build's.
inline std::string sample(const std::string& name) {
  const char* other = std::getenv("FXSCOPE_SAMPLE_DIR");
  return std::string(other != nullptr && *other != '\0' ? other : FXSCOPE_SAMPLES_DIR) + "/" + name;
}

inline std::string data(const std::string& name) {
  return std::string(FXSCOPE_TEST_DATA_DIR) + "/" + name;
}

}  // namespace fxscope::test
