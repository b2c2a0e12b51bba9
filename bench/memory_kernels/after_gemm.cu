// What GPT-2's layer norm pays for where it runs. The generated form takes 1.63 us in this bench
// reading from L2 and 1.76-2.14 us in fxscope's run of the model, where it follows a cuBLAS(Lt)
// GEMM (some split-K) in a CUDA graph (H200). This section times the layer norm, and a
// copy kernel of the same bytes reading what the GEMM wrote, in four settings, so that the model's
// context is measured instead of guessed:
//
//   graph    the GEMM and the kernel captured in one CUDA graph, replayed back to back
//            (reduce-overhead and max-autotune run so);
//   stream   the same two launched on a stream, back to back;
//   idle     the same with the stream synchronised between the GEMM and the kernel, so that the
//            kernel starts on an idle GPU, its input still in L2;
//   alone    the kernel by itself, back to back (what the other sections' BENCH_WARM=1 times).
//
// If the copy kernel slows after the GEMM as much as the layer norm does, the context costs any
// small kernel, and a reference copy timed alone misses that; if only the layer norm slows, its
// form meets the GEMM's leftovers in a way a copy does not.
//
// Measured (H200, medians of 30): the copy kernel reading the GEMM's product took
// 1.82-1.86 us in the graph against 1.44-1.47 on the stream, 1.44 with the GPU idle in between and
// 1.41 alone; the generated layer norm 1.86-1.92 / 1.66 / 1.66 / 1.60; a float4 form of it (team
// of 64) 1.79-1.86 / 1.60 / 1.57-1.60 / 1.57. So the place costs any kernel about 0.4 us, the
// copy as much as the layer norm, and a float4 form would gain 2-4%. That is why fxscope's run
// times its reference copy in each kernel's place (engine/gpu/kernels/copy_in_place.h).
#include <cublas_v2.h>

#include "after_gemm.h"

namespace fxbench {
namespace {

constexpr int kRows = 128;
constexpr int kCols = 768;

#define CHECK_CUBLAS(call)                                                            \
  do {                                                                                \
    const cublasStatus_t st_ = (call);                                                \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                               \
      std::fprintf(stderr, "%s:%d: cuBLAS error %d\n", __FILE__, __LINE__, int(st_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// m[128 x 768] = x[128 x K] * y[K x 768], row-major, in FP32 (cuBLAS's default math: no TF32).
void gemm(cublasHandle_t h, const float* x, const float* y, float* m, int k) {
  const float one = 1.0f;
  const float zero = 0.0f;
  CHECK_CUBLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kCols, kRows, k, &one, y, kCols, x, k,
                           &zero, m, kCols));
}

}  // namespace

void after_gemm(const KernelUnderTest* kernels, int count, Word* const* rs, Word* const* rd) {
  cublasHandle_t h = nullptr;
  CHECK_CUBLAS(cublasCreate(&h));
  cudaStream_t stream = nullptr;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUBLAS(cublasSetStream(h, stream));
  // The layer norm's buffers; m has room for the copy kernel's half of the bytes past the GEMM's
  // output, so that the copy reads what the GEMM wrote first.
  const double bytes = (3.0 * kRows * kCols + 3.0 * kCols + 2.0 * kRows) * 4;
  const long long words = static_cast<long long>(bytes / 2) / 16;
  float* m = device_floats(static_cast<std::size_t>(words) * 4);
  LnArgs p{device_floats(kRows * kCols), device_floats(kCols),        m,
           device_floats(kCols),         device_floats(kCols),        device_floats(kRows),
           device_floats(kRows),         device_floats(kRows * kCols)};
  Word* dst = nullptr;
  CHECK_CUDA(cudaMalloc(&dst, static_cast<std::size_t>(words) * 16));
  const Word* src = reinterpret_cast<const Word*>(m);
  const Refs refs = references(bytes, rs, rd);
  // GPT-2's two GEMMs that feed a layer norm: the attention's projection (K = 768) and the MLP's
  // (K = 3072, where cuBLAS may split K and add a reduction kernel).
  for (const int k : {768, 3072}) {
    const float* x = device_floats(static_cast<std::size_t>(kRows) * k);
    const float* y = device_floats(static_cast<std::size_t>(k) * kCols);
    for (int i = 0; i < count; ++i) {
      const KernelUnderTest& t = kernels[i];
      const auto pair = [&] {
        gemm(h, x, y, m, k);
        t.launch(p, src, dst, words, stream);
      };
      char label[120];
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      pair();
      CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
      CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
      for (int r = 0; r < kWarmup + kReps; ++r) CHECK_CUDA(cudaGraphLaunch(exec, stream));
      CHECK_CUDA(cudaStreamSynchronize(stream));
      std::snprintf(label, sizeof label, "%s after GEMM K=%d, graph", t.label, k);
      print(label, bytes, take(t.name), refs);
      CHECK_CUDA(cudaGraphExecDestroy(exec));
      CHECK_CUDA(cudaGraphDestroy(graph));

      for (int r = 0; r < kWarmup + kReps; ++r) pair();
      CHECK_CUDA(cudaStreamSynchronize(stream));
      std::snprintf(label, sizeof label, "%s after GEMM K=%d, stream", t.label, k);
      print(label, bytes, take(t.name), refs);

      for (int r = 0; r < kWarmup + kReps; ++r) {
        gemm(h, x, y, m, k);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        t.launch(p, src, dst, words, stream);
        CHECK_CUDA(cudaStreamSynchronize(stream));
      }
      std::snprintf(label, sizeof label, "%s after GEMM K=%d, idle between", t.label, k);
      print(label, bytes, take(t.name), refs);
    }
    CHECK_CUDA(cudaFree(const_cast<float*>(x)));
    CHECK_CUDA(cudaFree(const_cast<float*>(y)));
  }
  for (int i = 0; i < count; ++i) {
    const KernelUnderTest& t = kernels[i];
    for (int r = 0; r < kWarmup + kReps; ++r) t.launch(p, src, dst, words, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    char label[120];
    std::snprintf(label, sizeof label, "%s alone, back to back", t.label);
    print(label, bytes, take(t.name), refs);
  }
  take("");  // the GEMMs' records
  CHECK_CUBLAS(cublasDestroy(h));
  CHECK_CUDA(cudaStreamDestroy(stream));
}

}  // namespace fxbench
