// The build's paths of sample_graphs/ and tests/data/, compiled here alone: as compile definitions
// of every test file they would differ between two checkouts and make each of them miss the
// compiler cache.
#include "samples.h"

namespace fxscope::test {

const char* samples_dir() {
  return FXSCOPE_SAMPLES_DIR;
}
const char* test_data_dir() {
  return FXSCOPE_TEST_DATA_DIR;
}

}  // namespace fxscope::test
