#include "fxscope/ops/reduction_layout.h"

namespace fxscope::ops {

bool reduces_trailing_dims(const std::vector<std::int64_t>& sizes,
                           const std::vector<bool>& reduced) {
  bool seen_reduced = false;
  for (std::size_t d = 0; d < sizes.size() && d < reduced.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (reduced[d]) {
      seen_reduced = true;
    } else if (seen_reduced) {
      return false;
    }
  }
  return true;
}

}  // namespace fxscope::ops
