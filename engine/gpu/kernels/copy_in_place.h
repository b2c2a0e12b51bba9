#pragma once
// The reference copy of a kernel's bytes, timed where the kernel runs: right after the step that
// precedes it in the mode, reading first what that step wrote (as the kernel does), launched as
// the mode launches (captured into a CUDA graph in reduce-overhead and max-autotune, on the stream
// otherwise).
//
// Why (H200). bench_memory_kernels after-gemm: in a CUDA graph, a 1.2 MB copy kernel
// reading what a cuBLAS GEMM had just written took 1.82-1.86 us, against 1.41-1.47 us on a stream
// and alone; GPT-2's layer norm took 1.86-1.92 us there against 1.60-1.66 us. So the place costs
// any kernel there, whatever its form, and a copy timed alone does not pay it. In fxscope's run of
// GPT-2, copies timed after the same GEMM in the graph took 1.73 us reading a fresh part of memory,
// 1.44 us re-reading one source already in L2, and 1.66-1.81 us in the form below (its product,
// then memory), against 1.41-1.50 us alone. The copy alone is still measured and reported; the
// target judges the copy in place, which is stricter where the kernel reads from L2 what the step
// before wrote (ResNet-50's stem max-pool: 69% of it, 88% of the copy alone).
//
#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cupti/cupti_activity.h"
#include "runtime/executable.h"

namespace fxscope::gpu {

class ReferenceKernels;

struct InPlaceCopy {
  double us = 0;  // 0: not timed in place (PLACE says why)
  // "after group 12 mm (GEMM), reading what it wrote, in the CUDA graph", or "alone: <why>"
  std::string place;
};

struct KernelToPlace {
  std::size_t step = 0;  // the kernel's step in EXE
  double bytes = 0;      // what it moves (read + written)
};

// For each of KERNELS, keyed by its step: the median of 10 reference copies of its bytes (after 3
// warm-ups), each launched right after a replay of the step before it, reading the largest buffer
// that step wrote and the rest of its bytes from a fresh part of a 256 MiB buffer (as the copy
// alone reads), writing a fresh part of another; the faster of the two copy forms. Where that step
// wrote no buffer 16-byte words can read, all of it comes from the fresh part; PLACE says which.
// (Re-reading the step's output from its start, where it is smaller than the copy, as GPT-2's
// GEMM product, 393 KB of its layer norm's 1.18 MB, would read the rest from L2, where the copy
// alone reads memory: after GPT-2's GEMMs in the graph that form took 1.58-1.76 us, this one
// 1.66-1.81.) A step that indexes by data values (indexes_by_data) is not replayed: on its own,
// with buffers that later steps reused, its indices may point anywhere. Its successor is then
// judged against the copy alone, as is the first step.
std::map<std::size_t, InPlaceCopy> measure_copies_in_place(
    Executable& exe, const graph::Graph& graph, const std::vector<KernelToPlace>& kernels,
    bool cuda_graph, cudaStream_t stream, CuptiActivity& cupti, const ReferenceKernels& reference);

}  // namespace fxscope::gpu
