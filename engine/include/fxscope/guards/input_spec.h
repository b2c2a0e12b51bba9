#pragma once
// The what-if inputs a user types on the command line: a tensor as
// `x=8x64:f32[:stride=64x1][:cuda:0|cpu][:grad]` and a Python constant as `act=relu`.

#include <string_view>

#include "fxscope/core/result.h"
#include "fxscope/guards/proposed_input.h"

namespace fxscope::guards {

// Parses NAME=SIZES[:FIELD]...: SIZES is "8x64", or "" / "scalar" for a 0-d tensor; each FIELD
// is a dtype in any spelling parse_dtype accepts, stride=64x1, cuda, cuda:N, cpu, grad or
// nograd. Fields left out keep what each guard expects. The Error names the spec and what was
// expected there.
Result<TensorInput> parse_tensor_spec(std::string_view spec);

// Parses NAME=VALUE, VALUE a Python literal or a bare word taken as a string (act=relu).
Result<ConstantInput> parse_constant_spec(std::string_view spec);

}  // namespace fxscope::guards
