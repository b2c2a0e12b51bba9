#pragma once
// Whether NVRTC compiles here. It needs no GPU, but a machine may lack its library: the NVRTC
// tests then warn and check nothing rather than fail.

#include <string>

#include "fxscope/gpu/nvrtc_compiler.h"

namespace fxscope::test {

// Why NVRTC cannot compile a one-line kernel here; empty when it can. Probed once per process.
inline const std::string& nvrtc_unusable() {
  static const std::string why = [] {
    const auto probe = gpu::compile_cuda(
        "extern \"C\" __global__ void fx_probe(float* p) { p[0] = 1.0f; }\n", "fx_probe", {});
    return probe ? std::string() : probe.error().message;
  }();
  return why;
}

}  // namespace fxscope::test
