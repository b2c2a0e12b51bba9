#pragma once
#include <cuda_runtime.h>

#include "harness.h"

namespace fxbench {

// GPT-2's residual add + layer norm: out = LN(a + (bias + m)) * w + beta, and each row's mean and
// variance, over 128 rows of 768.
struct LnArgs {
  const float* a;
  const float* bias;
  const float* m;
  const float* w;
  const float* beta;
  float* var;
  float* mean;
  float* out;
};

// A kernel to time after a GEMM: how to launch it on a stream and the name CUPTI records.
struct KernelUnderTest {
  const char* label;
  const char* name;  // a part of the mangled name, for take()
  void (*launch)(const LnArgs& p, const Word* src, Word* dst, long long words, cudaStream_t s);
};

// Times each kernel of KERNELS right after a cuBLAS GEMM that writes the m it reads, as
// fxscope's run has it, and without the GEMM.
void after_gemm(const KernelUnderTest* kernels, int count, Word* const* rs, Word* const* rd);

}  // namespace fxbench
