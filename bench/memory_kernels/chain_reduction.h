#pragma once
#include "harness.h"

namespace fxbench {

// Times forms of pointwise_chain's looped var_mean kernel (twelve full-precision ops, then
// Welford over 64 rows x 65536 split 8 ways) and its pointwise twin, against copies over RS, RD.
void chain_reduction(Word* const* rs, Word* const* rd);

}  // namespace fxbench
