#pragma once
// Paths of the real captured logs in sample_graphs/ and of hand-made test inputs in tests/data/.

#include <cstdlib>
#include <string>

namespace fxscope::test {

// The build's sample_graphs/ and tests/data/ (support/test_paths.cpp).
const char* samples_dir();
const char* test_data_dir();

// FXSCOPE_SAMPLE_DIR names another sample_graphs/: the GPU machine runs copied test binaries in a
// tree whose path differs from the build's.
inline std::string sample(const std::string& name) {
  const char* other = std::getenv("FXSCOPE_SAMPLE_DIR");
  return std::string(other != nullptr && *other != '\0' ? other : samples_dir()) + "/" + name;
}

inline std::string data(const std::string& name) {
  return std::string(test_data_dir()) + "/" + name;
}

}  // namespace fxscope::test
