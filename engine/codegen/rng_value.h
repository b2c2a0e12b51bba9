#pragma once
// Dropout's per-element ops inside generated kernels: inductor_lookup_seed (one seed out of the
// seeds buffer) and inductor_random (Philox at the element's row-major linear index). See
// fxscope/codegen/rng.h for why every mode draws the same numbers.

#include <string>

#include "value_emitter.h"

namespace fxscope::codegen {

// True for prims.inductor_lookup_seed, prims.inductor_random and eager's aten.rand, randn,
// rand_like and randn_like.
bool is_rng_value_op(const graph::Node& node);
// The C expression of NODE (one of those two) at IDX, its operands read through EMITTER; an
// error says what the node lacks (the caller names the group and the node).
Result<std::string> rng_expression(ValueEmitter& emitter, graph::NodeId node, const Index& idx);
// Philox4x32-10 keyed by SEED at counter INDEX (C expressions) as one float expression:
// uniform in [0, 1), or with NORMAL a standard normal.
std::string philox_expression(const std::string& seed, const std::string& index, bool normal);

}  // namespace fxscope::codegen
