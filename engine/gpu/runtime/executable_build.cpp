// Executable::build in its steps: upload the inputs, plan the buffers in one arena, then build each
// step (a generated kernel, with its launch configs timed in max-autotune; a cuBLASLt GEMM, maybe
// with an epilogue; a cuDNN convolution; fxscope's attention kernel). A step that cannot be built
// is named and skipped; the rest still runs.

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>

#include "fxscope/core/progress_every.h"
#include "fxscope/gpu/dense_copy.h"
#include "fxscope/gpu/memory_plan.h"
#include "gemm/gemm_conv_runner.h"
#include "run/gpu_timing.h"
#include "runtime/executable_impl.h"
#include "runtime/subgraph_launch.h"

namespace fxscope::gpu {

namespace {

constexpr std::size_t kGemmWorkspace = 32u << 20;
// max-autotune keeps a kernel's default launch config unless another is this much faster: most
// picks won by a few percent, and one such win did not hold in the model (pick_variant).
constexpr double kPickMargin = 0.03;

std::string format_pick(const std::string& what, double best_us, double default_us) {
  char text[160];
  std::snprintf(text, sizeof text, "%s: %.2f us (default config %.2f us)", what.c_str(), best_us,
                default_us);
  return text;
}

// A generated kernel's variants, compiled and loaded, with their argument values.
struct LoadedVariants {
  std::vector<std::unique_ptr<KernelImage>> images;  // null where a variant failed
  // Each variant's kernel name as loaded: its own, or that of a kernel compiled before that
  // differs from it only in names (CompiledKernel), which is what CUPTI then records.
  std::vector<std::string> entries;
  std::vector<std::vector<void*>> values;
  std::string failure;  // why the first (default) variant failed: then the step cannot run
};

// Pointers to each of VALUES, as cuLaunchKernel takes arguments.
std::vector<void*> argument_pointers(std::vector<void*>& values) {
  std::vector<void*> args;
  for (auto& x : values) args.push_back(&x);
  return args;
}

}  // namespace

struct Executable::Builder {
  // A GEMM built with its next kernel's work in cuBLASLt's epilogue, decided at that kernel.
  struct PendingEpilogue {
    std::size_t step = 0;    // the GEMM's index in planned.steps
    std::size_t launch = 0;  // its index in launches_
    std::size_t built = 0;   // its index in built
    const LtGemm* plain = nullptr;
    const LtGemm* fused = nullptr;
    std::string where;
  };

  const graph::Graph& g;
  const ExecutableOptions& options;
  cudaStream_t stream;
  Executable& ex;
  Impl& im;
  PlannedSteps planned;

  std::size_t input_bytes = 0;
  char* arena = nullptr;
  MemoryPlan mem{};
  // Scratch buffers' lives, by their node and dtype (a split reduction's partial states, a
  // layout copy of the node).
  std::map<std::pair<graph::NodeId, std::string>, std::size_t> scratch_of{};

  std::size_t conv_workspace_bytes = 0;
  void* col_buffer = nullptr;  // max-autotune: im2col's, shared by the convolutions as GEMMs
  std::vector<StepPlan> built{};
  std::optional<PendingEpilogue> pending{};
  // max-autotune's picks by the keys of a step's variants: the variant and where it was timed.
  std::map<std::string, std::pair<std::size_t, std::string>> picked{};

  void say(const std::string& s) const {
    if (options.progress) options.progress(s);
  }
  void* ptr(graph::NodeId n) const { return static_cast<void*>(im.pointer(n)); }

  // Inputs: the placeholders and get_attr constants, uploaded once; they stay for the whole run.
  std::optional<Error> upload_inputs(const std::vector<std::vector<std::byte>>& inputs) {
    const std::vector<graph::NodeId> input_nodes = graph_inputs(g);
    for (std::size_t i = 0; i < input_nodes.size(); ++i) {
      const graph::NodeId n = input_nodes[i];
      const graph::Node& node = g.node(n);
      if (!node.meta || node.meta->is_sym_scalar()) continue;
      if (i >= inputs.size()) return make_error("input " + node.name + ": no data was generated");
      auto p = im.allocate(inputs[i].size(), "input " + node.name);
      if (!p) return p.error();
      if (const cudaError_t e =
              cudaMemcpy(*p, inputs[i].data(), inputs[i].size(), cudaMemcpyHostToDevice);
          e != cudaSuccess) {
        return make_error("input " + node.name + ": upload failed: " + cuda_text(e));
      }
      im.base_ptr[n] = static_cast<char*>(*p);
      input_bytes += inputs[i].size();
    }
    return std::nullopt;
  }

  // A step whose buffer cannot be sized (no annotation) is skipped, not guessed.
  void drop_unsized_steps() {
    std::vector<StepPlan> kept;
    for (auto& s : planned.steps) {
      std::string why;
      for (const auto* list : {&s.reads, &s.writes}) {
        for (const graph::NodeId n : *list) {
          const Location l = im.locate(n);
          const auto& m = g.node(l.base).meta;
          if (!im.base_ptr.count(l.base) && (!m || m->is_sym_scalar())) {
            why = "node " + g.node(l.base).name + " has no tensor annotation to size its buffer";
          }
        }
      }
      if (why.empty()) {
        kept.push_back(std::move(s));
        continue;
      }
      planned.ran_ops -= std::min(planned.ran_ops, s.group_ops);
      planned.skipped.push_back(
          {s.group, s.group_name, s.group_ops,
           "group " + std::to_string(s.group) + " " + s.group_name + ": " + why});
    }
    planned.steps = std::move(kept);
  }

  // Buffers: every base node a step touches that is not an input, with its life in steps, and
  // the scratch of split reductions and layout copies, placed in one arena.
  std::optional<Error> plan_buffers() {
    std::map<graph::NodeId, std::size_t> buffer_of;
    std::vector<BufferLife> lives;
    std::vector<graph::NodeId> owners;
    std::vector<bool> written;
    const auto touch = [&](graph::NodeId n, std::size_t step, bool write) {
      const Location l = im.locate(n);
      if (im.base_ptr.count(l.base)) return;
      auto [it, fresh] = buffer_of.emplace(l.base, lives.size());
      if (fresh) {
        const auto& m = *g.node(l.base).meta;
        lives.push_back({static_cast<std::size_t>(storage_elements(m, im.hints)) *
                             std::max<std::size_t>(element_bytes(m.dtype), 1),
                         step, step, false});
        owners.push_back(l.base);
        written.push_back(false);
      }
      BufferLife& b = lives[it->second];
      if (write) b.first_step = std::min(b.first_step, step);
      b.last_step = std::max(b.last_step, step);
      if (write) written[it->second] = true;
    };
    for (std::size_t i = 0; i < planned.steps.size(); ++i) {
      for (const graph::NodeId n : planned.steps[i].reads) touch(n, i, false);
      for (const graph::NodeId n : planned.steps[i].writes) touch(n, i, true);
    }
    for (const graph::NodeId n : output_nodes(g)) {
      const Location l = im.locate(n);
      if (const auto it = buffer_of.find(l.base); it != buffer_of.end())
        lives[it->second].pinned = true;
    }
    constexpr auto kScratch = static_cast<graph::NodeId>(-1);
    for (const ScratchBuffer& b : scratch_buffers(planned.steps)) {
      scratch_of[{b.node, b.dtype}] = lives.size();
      lives.push_back({b.bytes, b.first_step, b.last_step, false});
      owners.push_back(kScratch);
    }
    // What a skipped group was to write (a top-k's indices no kernel computes here) holds zeros
    // from the start, alive from the first step, so that the steps after it run on defined
    // values: an index of 0 lies inside any dimension, where garbage faults the whole mode.
    for (std::size_t b = 0; b < written.size(); ++b) {
      if (!written[b]) lives[b].first_step = 0;
    }
    mem = plan_memory(lives);
    auto a = im.allocate(mem.arena_bytes, "the arena of intermediate buffers");
    if (!a) return a.error();
    arena = static_cast<char*>(*a);
    for (std::size_t b = 0; b < written.size(); ++b) {
      if (written[b]) continue;
      if (const cudaError_t e = cudaMemset(arena + mem.offsets[b], 0, lives[b].bytes);
          e != cudaSuccess) {
        return make_error("cannot clear the buffer of " + g.node(owners[b]).name +
                          ", which no step writes: " + cuda_text(e));
      }
    }
    for (std::size_t b = 0; b < lives.size(); ++b) {
      if (owners[b] != kScratch) im.base_ptr[owners[b]] = arena + mem.offsets[b];
    }
    ex.peak_bytes_ = input_bytes + mem.arena_bytes;
    ex.unplanned_bytes_ = input_bytes + mem.total_bytes;
    say("memory: " + std::to_string(input_bytes >> 10) + " KiB inputs, arena " +
        std::to_string(mem.arena_bytes >> 10) + " KiB (" + std::to_string(mem.total_bytes >> 10) +
        " KiB without reuse)");
    return std::nullopt;
  }

  // Microseconds of one call of FN on the GPU (gpu_timing.h: 20 calls replayed as a CUDA graph);
  // 1e30 when it fails.
  double time_us(const std::function<void()>& fn) {
    const auto launch = [&] {
      fn();
      return cudaPeekAtLastError() == cudaSuccess;
    };
    return gpu_time_us(stream, launch, 20).value_or(1e30);
  }

  // Every variant of step S compiled and loaded, its arguments bound (scratch in the arena).
  LoadedVariants load_variants(const StepPlan& s, const std::string& where) {
    LoadedVariants out;
    for (std::size_t v = 0; v < s.variants.size(); ++v) {
      const auto& k = s.variants[v];
      auto image = options.compile(k.source, where);
      if (!image) {
        if (v == 0) out.failure = image.error().message;
        out.images.emplace_back();
        out.values.emplace_back();
        out.entries.emplace_back();
        continue;
      }
      auto kernel = KernelImage::load(image->cubin, image->entry_or(k.entry), where);
      if (!kernel) {
        if (v == 0) out.failure = kernel.error().message;
        out.images.emplace_back();
        out.values.emplace_back();
        out.entries.emplace_back();
        continue;
      }
      out.entries.push_back(image->entry_or(k.entry));
      std::vector<void*> vals;
      for (const auto& p : k.params) {
        vals.push_back(
            p.scratch_elements > 0
                ? static_cast<void*>(arena + mem.offsets[scratch_of.at({p.node, p.dtype})])
                : ptr(p.node));
      }
      out.images.push_back(std::move(*kernel));
      out.values.push_back(std::move(vals));
    }
    return out;
  }

  // max-autotune: the fastest of the loaded variants (the default config's time reported too).
  std::size_t pick_variant(const StepPlan& s, LoadedVariants& loaded, const std::string& where) {
    if (s.variants.size() <= 1) return 0;
    // A step taking indices from data is timed on buffers no step has written yet: its indices
    // may point anywhere, and a fault there ends every later launch of the process. It keeps its
    // default configuration.
    if (indexes_by_data(s, g)) {
      ex.picks_.push_back(where +
                          ": default configuration, not timed (it indexes by data, which "
                          "is not written before the run)");
      return 0;
    }
    // A model's layers repeat kernels: a step whose every variant is a twin of an earlier
    // step's (the same code on the same sizes, EngineCompiler's key) takes that step's pick.
    std::string twins;
    for (const auto& v : s.variants) twins += kernel_key(v.source).key + '\0';
    if (const auto it = picked.find(twins); it != picked.end()) {
      ex.picks_.push_back(where + ": the pick of " + it->second.second +
                          ", whose configs are the same kernels on the same sizes");
      return it->second.first;
    }
    const std::size_t best = time_variants(s, loaded, where);
    picked.emplace(std::move(twins), std::pair{best, where});
    return best;
  }

  std::size_t time_variants(const StepPlan& s, LoadedVariants& loaded, const std::string& where) {
    double default_us = 0;
    double best_us = 1e30;
    std::size_t best = 0;
    for (std::size_t v = 0; v < s.variants.size(); ++v) {
      if (!loaded.images[v]) continue;
      std::vector<void*> args = argument_pointers(loaded.values[v]);
      const auto& k = s.variants[v];
      const KernelImage* image = loaded.images[v].get();
      const double us =
          time_us([&] { image->launch(k.grid, k.block, k.shared_bytes, args.data(), stream); });
      if (cudaGetLastError() != cudaSuccess) continue;
      if (v == 0) default_us = us;
      if (us < best_us) {
        best_us = us;
        best = v;
      }
    }
    // Within the timing's noise the default stays: ResNet-50's input copy was picked for 1.12
    // against 1.14 us (CUPTI) and ran 2.06 us in the model, where the default ran 1.64 us.
    if (best != 0 && default_us > 0 && best_us > default_us * (1.0 - kPickMargin)) {
      best = 0;
      best_us = default_us;
    }
    const auto& c = s.variants[best].config;
    ex.picks_.push_back(format_pick(where + " block " + std::to_string(c.block) + " items " +
                                        std::to_string(c.items_per_thread) + " rows " +
                                        std::to_string(c.rows_per_block) + " (" +
                                        std::to_string(s.variants.size()) + " configs)",
                                    best_us, default_us));
    return best;
  }

  // The previous step's GEMM offered to do this kernel's work in cuBLASLt's epilogue: both ways
  // are timed and the faster kept. True when the epilogue won (the kernel then does not launch).
  bool settle_epilogue(const KernelImage& kernel, const codegen::GeneratedKernel& k,
                       std::vector<void*>& values, const std::string& where) {
    std::vector<void*> args = argument_pointers(values);
    const LtGemm* plain = pending->plain;
    const LtGemm* fused = pending->fused;
    const double separate_us = time_us([&] {
      plain->launch(stream);
      kernel.launch(k.grid, k.block, k.shared_bytes, args.data(), stream);
    });
    const double fused_us = time_us([&] { fused->launch(stream); });
    const bool absorbed = fused_us < separate_us;
    StepPlan& gemm_step = built[pending->built];
    const std::string what = "cuBLASLt " + gemm_step.fused_epilogue->what + " epilogue";
    if (absorbed) {
      ex.launches_[pending->launch] = [fused, w = pending->where](cudaStream_t st) {
        const cublasStatus_t r = fused->launch(st);
        return r == CUBLAS_STATUS_SUCCESS ? std::string()
                                          : w + ": cuBLASLt failed: " + cublas_text(r);
      };
      gemm_step.name += " + " + gemm_step.fused_epilogue->what + " epilogue";
    } else {
      gemm_step.writes.pop_back();  // the plain GEMM does not write the epilogue's output
    }
    char text[256];
    std::snprintf(text, sizeof text, "%s + %s: %s, %s %.2f us, GEMM + kernel %.2f us",
                  pending->where.c_str(), where.c_str(),
                  absorbed ? "epilogue in cuBLASLt" : "GEMM + generated kernel", what.c_str(),
                  fused_us, separate_us);
    ex.picks_.push_back(text);
    pending.reset();
    return absorbed;
  }

  // Each build_* returns "" or why the step cannot run.
  std::string build_generated(std::size_t i, StepPlan& s, const std::string& where,
                              bool& absorbed) {
    LoadedVariants loaded = load_variants(s, where);
    if (!loaded.failure.empty()) return loaded.failure;
    const std::size_t best = pick_variant(s, loaded, where);
    if (pending && pending->step + 1 == i && loaded.images[best]) {
      absorbed =
          settle_epilogue(*loaded.images[best], s.variants[best], loaded.values[best], where);
      if (absorbed) {
        // Kept loaded: CUPTI names kernels by handle, and the timing launches ran it.
        im.images.push_back(std::move(loaded.images[best]));
        return "";
      }
    }
    const codegen::GeneratedKernel k = s.variants[best];
    s.name = loaded.entries[best];
    im.arg_values.push_back(std::move(loaded.values[best]));
    std::vector<void*> args = argument_pointers(im.arg_values.back());
    const KernelImage* image = loaded.images[best].get();
    im.images.push_back(std::move(loaded.images[best]));
    ex.launches_.push_back([image, k, args, where](cudaStream_t st) mutable -> std::string {
      const cudaError_t e = image->launch(k.grid, k.block, k.shared_bytes, args.data(), st);
      return e == cudaSuccess ? "" : where + ": launch failed: " + cuda_text(e);
    });
    return "";
  }

  // cuBLASLt's handle and workspace, made at the first GEMM; "" or why they could not be.
  std::string ensure_lt() {
    if (im.lt) return "";
    auto handle = create_cublaslt_handle();
    if (!handle) return handle.error().message;
    im.lt = *handle;
    auto ws = im.allocate(kGemmWorkspace, "the cuBLASLt workspace");
    if (!ws) return ws.error().message;
    im.gemm_workspace = *ws;
    return "";
  }

  std::string build_gemm(std::size_t i, StepPlan& s, const std::string& where) {
    if (const std::string e = ensure_lt(); !e.empty()) return e;
    GemmPointers p;
    p.a = ptr(s.gemm->a.node);
    p.b = ptr(s.gemm->b.node);
    p.out = ptr(s.gemm->out.node);
    if (s.gemm->bias_vector) p.bias = ptr(*s.gemm->bias_vector);
    if (s.gemm->bias_matrix) p.c = ptr(s.gemm->bias_matrix->node);
    auto gemm = LtGemm::create(im.lt, *s.gemm, p, im.gemm_workspace, kGemmWorkspace, where);
    if (!gemm) return gemm.error().message;
    if (options.tune) {
      if (auto pick = (*gemm)->tune(stream, 8)) ex.picks_.push_back(where + " " + *pick);
    }
    const LtGemm* lt = gemm->get();
    im.gemms.push_back(std::move(*gemm));
    if (s.fused_epilogue) {
      GemmPointers fp = p;
      fp.out = ptr(s.fused_epilogue->out);
      if (s.fused_epilogue->fused.bias_vector) fp.bias = ptr(*s.fused_epilogue->fused.bias_vector);
      auto fused = LtGemm::create(im.lt, s.fused_epilogue->fused, fp, im.gemm_workspace,
                                  kGemmWorkspace, where);
      if (fused && options.tune) (*fused)->tune(stream, 8);
      if (fused) {
        pending = PendingEpilogue{i, ex.launches_.size(), built.size(), lt, fused->get(), where};
        im.gemms.push_back(std::move(*fused));
      } else {
        ex.picks_.push_back(where + ": cuBLASLt " + s.fused_epilogue->what +
                            " epilogue not offered: " + fused.error().message);
        s.writes.pop_back();
        s.fused_epilogue.reset();
      }
    } else if (!s.epilogue_note.empty()) {
      ex.picks_.push_back(where +
                          ": GEMM + generated kernel, no cuBLASLt epilogue: " + s.epilogue_note);
    }
    ex.launches_.push_back([lt, where](cudaStream_t st) -> std::string {
      const cublasStatus_t r = lt->launch(st);
      return r == CUBLAS_STATUS_SUCCESS ? "" : where + ": cuBLASLt failed: " + cublas_text(r);
    });
    return "";
  }

  // max-autotune: the convolution as an im2col and one cuBLASLt GEMM (gemm_conv.h), its
  // algorithms tuned; null (and NOTE says why) where it cannot be.
  std::unique_ptr<GemmConv> gemm_conv(const StepPlan& s, const std::string& where,
                                      std::string& note) {
    auto plan = plan_gemm_conv(*s.conv);
    if (!plan) {
      note = plan.error().message;
      return nullptr;
    }
    if (const std::string e = ensure_lt(); !e.empty()) {
      note = e;
      return nullptr;
    }
    GemmConvBuffers b{ptr(s.conv->x), ptr(s.conv->w), s.conv->bias ? ptr(*s.conv->bias) : nullptr,
                      ptr(s.conv->out), col_buffer};
    auto conv = GemmConv::create(im.lt, *plan, b, options.compile, im.gemm_workspace,
                                 kGemmWorkspace, where);
    if (!conv) {
      note = conv.error().message;
      return nullptr;
    }
    if (auto pick = (*conv)->tune(stream); !pick) {
      note = pick.error().message;
      return nullptr;
    }
    return std::move(*conv);
  }

  // An operand copied into a dense buffer before a cuDNN call (dense_copy.h).
  struct DenseCopy {
    const KernelImage* kernel = nullptr;
    const void* src = nullptr;
    void* dst = nullptr;
    DenseCopyShape shape{};
    long long blocks = 1;
  };
  std::map<std::size_t, const KernelImage*> dense_copy_kernels{};  // by element bytes

  // The buffer cuDNN uses for NODE: its own where STRIDES are dense in the call's format
  // (CHANNELS_LAST or contiguous), else a dense buffer with a copy added to COPIES: of NODE into
  // it before the call for an operand, of it into NODE after the call for a RESULT. STRIDES
  // become the dense buffer's.
  Result<void*> dense_buffer(graph::NodeId node, const std::vector<std::int64_t>& sizes,
                             std::vector<std::int64_t>& strides, const std::string& dtype,
                             bool channels_last, const std::string& where,
                             std::vector<DenseCopy>& copies, bool result = false) {
    const std::vector<std::int64_t> want = dense_strides(sizes, channels_last);
    if (same_layout(sizes, strides, want)) return ptr(node);
    if (sizes.size() > static_cast<std::size_t>(kDenseCopyMaxRank)) {
      return make_error(where + ": " + g.node(node).name + " is not dense and has more than " +
                        std::to_string(kDenseCopyMaxRank) + " dims to copy");
    }
    const std::size_t element = std::max<std::size_t>(element_bytes(dtype), 1);
    const std::string entry = dense_copy_entry(element);
    if (entry.empty()) return make_error(where + ": no dense copy for " + dtype + " elements");
    if (!dense_copy_kernels.count(element)) {
      auto image = options.compile(dense_copy_source(), where + " (dense copy)");
      if (!image) return image.error();
      auto kernel = KernelImage::load(image->cubin, entry, where + " (dense copy)");
      if (!kernel) return kernel.error();
      dense_copy_kernels[element] = kernel->get();
      im.images.push_back(std::move(*kernel));
    }
    DenseCopy c;
    c.kernel = dense_copy_kernels.at(element);
    c.shape.rank = static_cast<int>(sizes.size());
    c.shape.n = 1;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      c.shape.sizes[d] = sizes[d];
      c.shape.src[d] = result ? want[d] : strides[d];
      c.shape.dst[d] = result ? strides[d] : want[d];
      c.shape.n *= sizes[d];
    }
    auto dense = im.allocate(static_cast<std::size_t>(c.shape.n) * element,
                             "a dense copy of " + g.node(node).name);
    if (!dense) return dense.error();
    c.blocks = std::clamp<long long>((c.shape.n + 255) / 256, 1, 65536);
    c.src = result ? *dense : ptr(node);
    c.dst = result ? ptr(node) : *dense;
    copies.push_back(c);
    strides = want;
    return *dense;
  }

  static std::string run_copies(const std::vector<DenseCopy>& copies, cudaStream_t st,
                                const std::string& where) {
    for (const DenseCopy& c : copies) {
      const void* src = c.src;
      void* dst = c.dst;
      DenseCopyShape shape = c.shape;
      void* args[3] = {&src, &dst, &shape};
      if (const cudaError_t e = c.kernel->launch(c.blocks, 256, 0, args, st); e != cudaSuccess) {
        return where + ": dense copy of an operand failed: " + cuda_text(e);
      }
    }
    return "";
  }

  // cuDNN's time for CONV (a workspace of its own for the timing); 1e30 when it fails.
  double cudnn_us(const CudnnConv& conv, const void* x, const void* w, const void* bias,
                  void* out) {
    void* ws = nullptr;
    if (conv.workspace_bytes() > 0 && cudaMalloc(&ws, conv.workspace_bytes()) != cudaSuccess) {
      cudaGetLastError();
      return 1e30;
    }
    const double us = time_us([&] { conv.launch(stream, x, w, bias, out, ws); });
    cudaFree(ws);
    return us;
  }

  std::string build_conv(StepPlan& s, const std::string& where) {
    // cuDNN's operands dense in one format, as ATen gives them (dense_copy.h).
    ConvSpec dense = *s.conv;
    const bool channels_last = lies_channels_last(dense.x_sizes, dense.x_strides) ||
                               weight_layout(dense) == WeightLayout::channels_last;
    std::vector<DenseCopy> copies;
    auto xd = dense_buffer(dense.x, dense.x_sizes, dense.x_strides, dense.dtype, channels_last,
                           where, copies);
    if (!xd) return xd.error().message;
    auto wd = dense_buffer(dense.w, dense.w_sizes, dense.w_strides, dense.dtype, channels_last,
                           where, copies);
    if (!wd) return wd.error().message;
    void* x = *xd;
    void* w = *wd;
    void* bias = s.conv->bias ? ptr(*s.conv->bias) : nullptr;
    void* out = ptr(s.conv->out);
    auto conv = CudnnConv::create(dense, where);
    std::unique_ptr<GemmConv> as_gemm;
    std::string gemm_note;
    if (options.tune) as_gemm = gemm_conv(s, where, gemm_note);
    if (!conv && !as_gemm) return conv.error().message;
    if (conv && options.tune) {
      if (auto pick = (*conv)->tune(stream, x, w, bias, out)) {
        ex.picks_.push_back(where + " cuDNN " + *pick);
      }
    }
    if (options.tune && !as_gemm) {
      ex.picks_.push_back(where + ": cuDNN, not as a GEMM: " + gemm_note);
    }
    if (as_gemm) {
      // cuDNN stays unless the GEMM is clearly faster (the margin of pick_variant).
      const GemmConv* gc = as_gemm.get();
      const double gemm_us = time_us([&] { gc->launch(stream); });
      const double dnn_us = conv ? cudnn_us(**conv, x, w, bias, out) : 1e30;
      const bool take = gemm_us < dnn_us * (1.0 - kPickMargin);
      char text[320];
      std::snprintf(text, sizeof text, "%s: %s, %s %.2f us, cuDNN %s%.2f us", where.c_str(),
                    take ? "convolution as a GEMM" : "convolution on cuDNN", gc->what().c_str(),
                    gemm_us, conv ? "" : "(unavailable) ", conv ? dnn_us : 0.0);
      ex.picks_.push_back(text);
      if (take) {
        im.gemm_convs.push_back(std::move(as_gemm));
        s.name = "convolution as " + gc->what();
        ex.launches_.push_back([gc](cudaStream_t st) { return gc->launch(st); });
        return "";
      }
    }
    if (!conv) return conv.error().message;
    conv_workspace_bytes = std::max(conv_workspace_bytes, (*conv)->workspace_bytes());
    const CudnnConv* c = conv->get();
    im.convs.push_back(std::move(*conv));
    Impl* impl = &im;
    ex.launches_.push_back([c, x, w, bias, out, impl, copies, where](cudaStream_t st) {
      if (std::string e = run_copies(copies, st, where); !e.empty()) return e;
      return c->launch(st, x, w, bias, out, impl->conv_workspace);
    });
    return "";
  }

  std::string build_conv_backward(const StepPlan& s, const std::string& where) {
    ConvBackwardSpec b = *s.conv_backward;
    ConvSpec& spec = b.conv;
    // cuDNN's operands dense in one format, as ATen gives them (dense_copy.h).
    const bool channels_last = lies_channels_last(spec.x_sizes, spec.x_strides) ||
                               weight_layout(spec) == WeightLayout::channels_last;
    std::vector<DenseCopy> copies;
    auto dyd = dense_buffer(spec.out, spec.out_sizes, spec.out_strides, spec.dtype, channels_last,
                            where, copies);
    if (!dyd) return dyd.error().message;
    auto xd = dense_buffer(spec.x, spec.x_sizes, spec.x_strides, spec.dtype, channels_last, where,
                           copies);
    if (!xd) return xd.error().message;
    auto wd = dense_buffer(spec.w, spec.w_sizes, spec.w_strides, spec.dtype, channels_last, where,
                           copies);
    if (!wd) return wd.error().message;
    std::vector<DenseCopy> after;
    void* dx = nullptr;
    void* dw = nullptr;
    if (b.grad_x) {
      auto r = dense_buffer(*b.grad_x, spec.x_sizes, b.grad_x_strides, spec.dtype, channels_last,
                            where, after, true);
      if (!r) return r.error().message;
      dx = *r;
    }
    if (b.grad_w) {
      auto r = dense_buffer(*b.grad_w, spec.w_sizes, b.grad_w_strides, spec.dtype, channels_last,
                            where, after, true);
      if (!r) return r.error().message;
      dw = *r;
    }
    auto conv = CudnnConvBackward::create(b, where);
    if (!conv) return conv.error().message;
    if (options.tune) ex.picks_.push_back(where + " cuDNN backward, " + (*conv)->algorithms());
    conv_workspace_bytes = std::max(conv_workspace_bytes, (*conv)->workspace_bytes());
    const auto out = [&](const std::optional<graph::NodeId>& n) { return n ? ptr(*n) : nullptr; };
    const void* dy = *dyd;
    const void* x = *xd;
    const void* w = *wd;
    void* db = out(b.grad_bias);
    const CudnnConvBackward* c = conv->get();
    im.conv_backwards.push_back(std::move(*conv));
    Impl* impl = &im;
    ex.launches_.push_back([c, dy, x, w, dx, dw, db, impl, copies, after, where](cudaStream_t st) {
      if (std::string e = run_copies(copies, st, where); !e.empty()) return e;
      if (std::string e = c->launch(st, dy, x, w, dx, dw, db, impl->conv_workspace); !e.empty()) {
        return e;
      }
      return run_copies(after, st, where);
    });
    return "";
  }

  std::string build_attention(const StepPlan& s, const std::string& where) {
    const AttentionSpec& a = *s.attention;
    auto image = options.compile(attention_source(a), where);
    if (!image) return image.error().message;
    auto kernel = KernelImage::load(image->cubin, image->entry_or("fxscope_attention"), where);
    if (!kernel) return kernel.error().message;
    auto& values = im.arg_values.emplace_back();
    for (const auto& node : attention_arguments(a)) values.push_back(node ? ptr(*node) : nullptr);
    std::vector<void*> args = argument_pointers(im.arg_values.back());
    const long long blocks = attention_blocks(a);
    const int threads = attention_threads(a);
    const std::size_t shared = attention_shared_bytes(a);
    const KernelImage* k = kernel->get();
    im.images.push_back(std::move(*kernel));
    ex.launches_.push_back([k, args, blocks, threads, shared, where](cudaStream_t st) mutable {
      const cudaError_t e = k->launch(blocks, threads, shared, args.data(), st);
      return e == cudaSuccess ? std::string() : where + ": launch failed: " + cuda_text(e);
    });
    return "";
  }

  std::string build_subgraphs(const StepPlan& s, const std::string& where) {
    auto launch = build_subgraph_launch(
        g, s, [this](graph::NodeId n) { return im.pointer(n); }, options, stream, im.callees,
        where);
    if (!launch) return launch.error().message;
    ex.launches_.push_back(std::move(*launch));
    return "";
  }

  // Steps: compile, load and bind pointers; a group that cannot be compiled or set up is named
  // and skipped.
  std::optional<Error> build_steps() {
    if (options.tune) {
      // One im2col buffer for every convolution max-autotune may run as a GEMM: steps run one
      // after another on one stream.
      std::size_t bytes = 0;
      for (const StepPlan& s : planned.steps) {
        if (s.kind != StepKind::conv) continue;
        if (auto p = plan_gemm_conv(*s.conv)) {
          bytes = std::max(bytes, static_cast<std::size_t>(p->col_elements) *
                                      std::max<std::size_t>(element_bytes(s.conv->dtype), 1));
        }
      }
      if (bytes > 0) {
        auto col = im.allocate(bytes, "the im2col buffer of convolutions as GEMMs");
        if (col) col_buffer = *col;  // without it, convolutions stay on cuDNN
      }
    }
    std::set<std::size_t> failed_groups;
    // max-autotune times every variant of every step here: minutes on a large training step.
    std::optional<core::ProgressEvery> tuning;
    if (options.tune) tuning.emplace(options.progress, planned.steps.size(), "steps tuned");
    for (std::size_t i = 0; i < planned.steps.size(); ++i) {
      if (tuning) tuning->done(i);
      StepPlan& s = planned.steps[i];
      const std::string where = "group " + std::to_string(s.group) + " " + s.group_name;
      bool absorbed = false;  // this kernel runs in the previous GEMM's epilogue
      std::string failure;
      switch (s.kind) {
        case StepKind::generated:
          failure = build_generated(i, s, where, absorbed);
          break;
        case StepKind::gemm:
          failure = build_gemm(i, s, where);
          break;
        case StepKind::conv:
          failure = build_conv(s, where);
          break;
        case StepKind::conv_backward:
          failure = build_conv_backward(s, where);
          break;
        case StepKind::attention:
          failure = build_attention(s, where);
          break;
        case StepKind::subgraphs:
          failure = build_subgraphs(s, where);
          break;
      }
      if (absorbed) continue;
      if (failure.empty()) {
        built.push_back(std::move(s));
        continue;
      }
      if (failed_groups.insert(s.group).second) {
        planned.ran_ops -= std::min(planned.ran_ops, s.group_ops);
        planned.skipped.push_back({s.group, s.group_name, s.group_ops, failure});
      }
    }
    if (tuning) tuning->finish();
    planned.steps = std::move(built);
    if (conv_workspace_bytes > 0) {
      auto ws = im.allocate(conv_workspace_bytes, "the cuDNN workspace");
      if (!ws) return ws.error();
      im.conv_workspace = *ws;
    }
    return std::nullopt;
  }
};

Result<std::unique_ptr<Executable>> Executable::build(
    const graph::Graph& g, PlannedSteps planned, const std::vector<std::vector<std::byte>>& inputs,
    const ExecutableOptions& options, cudaStream_t stream) {
  std::unique_ptr<Executable> ex(new Executable());
  ex->impl_ = std::make_unique<Impl>();
  ex->impl_->graph = &g;
  ex->impl_->hints = options.hints;
  Builder b{g, options, stream, *ex, *ex->impl_, std::move(planned)};
  if (auto e = b.upload_inputs(inputs)) return *e;
  b.drop_unsized_steps();
  if (auto e = b.plan_buffers()) return *e;
  if (auto e = b.build_steps()) return *e;
  ex->steps_ = std::move(b.planned);
  return ex;
}

}  // namespace fxscope::gpu
