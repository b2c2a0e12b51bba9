#include "kernels/copy_in_place.h"

#include <algorithm>
#include <cstdint>

#include "kernels/copy_region.h"
#include "kernels/reference_kernels.h"
#include "run/gpu_timing.h"
#include "runtime/cuda_status.h"

namespace fxscope::gpu {
namespace {

constexpr int kWarmup = 3;
constexpr int kReps = 10;

const char* kind_text(StepKind k) {
  switch (k) {
    case StepKind::generated:
      return "generated kernel";
    case StepKind::gemm:
      return "GEMM";
    case StepKind::conv:
      return "convolution";
    case StepKind::conv_backward:
      return "convolution backward";
    case StepKind::attention:
      return "attention";
    case StepKind::subgraphs:
      return "torch.cond";
  }
  return "step";
}

// What the copies read: the buffer the step before wrote, then a fresh part of the region each
// time for the rest (all of it where that step wrote no buffer 16-byte words can read).
struct CopySource {
  const void* written = nullptr;
  long long written_words = 0;
};

CopySource source_after(const Executable& exe, std::size_t before) {
  const auto [p, bytes] = exe.largest_output(before);
  if (p == nullptr || reinterpret_cast<std::uintptr_t>(p) % 16 != 0 || bytes < 16) return {};
  return {p, static_cast<long long>(bytes / 16)};
}

// One pass of (step before, copy) pairs: captured and replayed once in a CUDA graph, or launched
// on the stream. Returns the copies' CUPTI times in launch order after the warm-ups, or the error.
Result<std::vector<double>> time_pairs(Executable& exe, std::size_t before,
                                       const CopySource& source, const CopyRegion& region,
                                       std::size_t half, bool four, bool cuda_graph,
                                       cudaStream_t stream, CuptiActivity& cupti,
                                       const ReferenceKernels& reference) {
  cupti.take();
  std::size_t offset = 0;
  const auto pairs = [&]() -> std::string {
    for (int i = 0; i < kWarmup + kReps; ++i) {
      if (std::string err = exe.launch_step(before, stream); !err.empty()) return err;
      char* dst = region.dst() + offset;
      const auto words = static_cast<long long>(half / 16);
      const char* fresh = region.src() + offset;
      const cudaError_t e =
          source.written
              ? reference.copy_from(source.written, std::min(source.written_words, words), fresh,
                                    dst, words, four, stream)
              : reference.copy(fresh, dst, words, four, stream);
      if (e != cudaSuccess) return "the reference copy: " + cuda_text(e);
      offset = CopyRegion::next_offset(offset, half);
    }
    return "";
  };
  if (!cuda_graph) {
    if (std::string err = pairs(); !err.empty()) return make_error(err);
  } else {
    if (const cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
        e != cudaSuccess) {
      return make_error("cannot start a CUDA graph capture: " + cuda_text(e));
    }
    const std::string err = pairs();
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream, &graph);
    if (!err.empty() || end != cudaSuccess) {
      if (graph) cudaGraphDestroy(graph);
      return make_error(err.empty() ? "CUDA graph capture failed: " + cuda_text(end) : err);
    }
    cudaGraphExec_t exec = nullptr;
    cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    // Uploaded before it is launched, so that the launch is the replay the mode times.
    if (e == cudaSuccess) e = cudaGraphUpload(exec, stream);
    if (e == cudaSuccess) e = cudaGraphLaunch(exec, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (exec) cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) return make_error("the CUDA graph of the copies: " + cuda_text(e));
  }
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    return make_error(cuda_text(e));
  }
  const char* name =
      source.written ? (four ? ReferenceKernels::kCopy4FromName : ReferenceKernels::kCopyFromName)
                     : (four ? ReferenceKernels::kCopy4Name : ReferenceKernels::kCopyName);
  std::vector<const KernelRecord*> copies;
  const ActivityBatch batch = cupti.take();
  for (const KernelRecord& k : batch.records.kernels) {
    if (k.name == name && k.end > k.start) copies.push_back(&k);
  }
  std::sort(copies.begin(), copies.end(),
            [](const KernelRecord* a, const KernelRecord* b) { return a->start < b->start; });
  if (copies.size() <= static_cast<std::size_t>(kWarmup)) {
    return make_error("CUPTI recorded " + std::to_string(copies.size()) + " of the " +
                      std::to_string(kWarmup + kReps) + " copies");
  }
  std::vector<double> us;
  for (std::size_t i = kWarmup; i < copies.size(); ++i) us.push_back(copies[i]->us());
  return us;
}

}  // namespace

std::map<std::size_t, InPlaceCopy> measure_copies_in_place(
    Executable& exe, const graph::Graph& graph, const std::vector<KernelToPlace>& kernels,
    bool cuda_graph, cudaStream_t stream, CuptiActivity& cupti, const ReferenceKernels& reference) {
  std::map<std::size_t, InPlaceCopy> out;
  if (kernels.empty()) return out;
  CopyRegion region;
  if (!region.allocate()) {
    for (const KernelToPlace& k : kernels) {
      out[k.step].place = "alone: no device memory for the copies in place (2 x 256 MiB)";
    }
    return out;
  }
  cupti.record(true);
  region.warm_clocks(stream);
  for (const KernelToPlace& k : kernels) {
    InPlaceCopy& r = out[k.step];
    if (k.step == 0 || k.step >= exe.steps().size()) {
      r.place = k.step == 0 ? "alone: the first step" : "alone: not a step of this mode";
      continue;
    }
    const StepPlan& before = exe.steps()[k.step - 1];
    const std::string name = "group " + std::to_string(before.group) + " " + before.group_name;
    if (indexes_by_data(before, graph)) {
      r.place = "alone: the step before (" + name + ") indexes by data and is not replayed alone";
      continue;
    }
    const std::size_t half = static_cast<std::size_t>(k.bytes / 2) / 16 * 16;
    if (half == 0 || half > CopyRegion::kBytes / 2) {
      r.place = "alone: outside the sizes timed in place";
      continue;
    }
    const CopySource source = source_after(exe, k.step - 1);
    std::string failed;
    for (const bool four : {false, true}) {
      auto us = time_pairs(exe, k.step - 1, source, region, half, four, cuda_graph, stream, cupti,
                           reference);
      if (!us) {
        failed = us.error().message;
        break;
      }
      const double m = median(*us);
      r.us = r.us > 0 ? std::min(r.us, m) : m;
    }
    if (!failed.empty()) {
      cudaGetLastError();
      r.us = 0;
      r.place = "alone: timing the copy after " + name + " failed: " + failed;
      continue;
    }
    r.place = "after " + name + " (" + kind_text(before.kind) + "), " +
              (source.written ? "reading what it wrote, " : "reading from memory, ") +
              (cuda_graph ? "in the CUDA graph" : "on the stream");
  }
  return out;
}

}  // namespace fxscope::gpu
