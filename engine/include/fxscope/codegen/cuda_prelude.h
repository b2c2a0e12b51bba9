#pragma once
// The device-side helpers every generated kernel starts with: half and bfloat16 conversions
// without the toolkit's headers (NVRTC compiles the source alone), and the combine operators and
// team reductions the reduction kernels use.

#include <string_view>

namespace fxscope::codegen {

std::string_view cuda_prelude();

}  // namespace fxscope::codegen
