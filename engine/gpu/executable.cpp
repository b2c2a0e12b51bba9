#include "executable.h"

#include <cublasLt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "cuda_status.h"
#include "cudnn_conv.h"
#include "fxscope/gpu/host_values.h"
#include "fxscope/gpu/memory_plan.h"
#include "fxscope/gpu/random_inputs.h"
#include "kernel_image.h"
#include "lt_gemm.h"

namespace fxscope::gpu {

namespace {

constexpr std::size_t kGemmWorkspace = 32u << 20;

struct Location {
  graph::NodeId base = 0;
  std::int64_t offset = 0;  // elements
};

std::vector<graph::NodeId> output_nodes(const graph::Graph& g) {
  std::vector<graph::NodeId> out;
  for (const graph::Node& n : g.nodes()) {
    if (n.op != graph::OpKind::output) continue;
    for (const auto& a : n.args) a.for_each_node([&](graph::NodeId id) { out.push_back(id); });
  }
  return out;
}

std::string format_pick(const std::string& what, double best_us, double default_us) {
  char text[160];
  std::snprintf(text, sizeof text, "%s: %.2f us (default config %.2f us)", what.c_str(), best_us,
                default_us);
  return text;
}

}  // namespace

struct Executable::Impl {
  const graph::Graph* graph = nullptr;
  ops::SymbolHints hints;
  std::vector<void*> allocations;
  std::map<graph::NodeId, char*> base_ptr;  // buffer start of every node that owns memory
  cublasLtHandle_t lt = nullptr;
  void* gemm_workspace = nullptr;
  void* conv_workspace = nullptr;
  std::vector<std::unique_ptr<KernelImage>> images;
  std::vector<std::unique_ptr<LtGemm>> gemms;
  std::vector<std::unique_ptr<CudnnConv>> convs;
  std::vector<std::vector<void*>> arg_values;  // stable storage for kernel arguments

  Location locate(graph::NodeId node) const {
    if (const auto a = codegen::alias_of(*graph, node, hints)) return {a->base, a->offset};
    return {node, 0};
  }
  std::size_t element_size(graph::NodeId node) const {
    const auto& m = graph->node(node).meta;
    return m ? std::max<std::size_t>(element_bytes(m->dtype), 1) : 4;
  }
  char* pointer(graph::NodeId node) const {
    const Location l = locate(node);
    const auto it = base_ptr.find(l.base);
    if (it == base_ptr.end()) return nullptr;
    return it->second + l.offset * static_cast<std::int64_t>(element_size(l.base));
  }
  Result<void*> allocate(std::size_t bytes, const std::string& what) {
    void* p = nullptr;
    if (const cudaError_t e = cudaMalloc(&p, std::max<std::size_t>(bytes, 256)); e != cudaSuccess) {
      cudaGetLastError();
      return make_error("cannot allocate " + std::to_string(bytes) + " bytes for " + what + ": " +
                        cuda_text(e));
    }
    allocations.push_back(p);
    return p;
  }
};

Executable::~Executable() {
  if (exec_) cudaGraphExecDestroy(exec_);
  if (graph_) cudaGraphDestroy(graph_);
  if (!impl_) return;
  impl_->gemms.clear();
  impl_->convs.clear();
  impl_->images.clear();
  if (impl_->lt) cublasLtDestroy(impl_->lt);
  for (void* p : impl_->allocations) cudaFree(p);
}

Result<std::unique_ptr<Executable>> Executable::build(
    const graph::Graph& g, PlannedSteps planned, const std::vector<std::vector<std::byte>>& inputs,
    const ExecutableOptions& options, cudaStream_t stream) {
  std::unique_ptr<Executable> ex(new Executable());
  ex->impl_ = std::make_unique<Impl>();
  Impl& im = *ex->impl_;
  im.graph = &g;
  im.hints = options.hints;
  const auto say = [&](const std::string& s) {
    if (options.progress) options.progress(s);
  };

  // Inputs: the placeholders and get_attr constants, uploaded once; they stay for the whole run.
  const std::vector<graph::NodeId> input_nodes = graph_inputs(g);
  std::size_t input_bytes = 0;
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

  // Buffers: every base node a step touches that is not an input, with its life in steps.
  // A step whose buffer cannot be sized (no annotation) is skipped, not guessed.
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

  std::map<graph::NodeId, std::size_t> buffer_of;
  std::vector<BufferLife> lives;
  std::vector<graph::NodeId> owners;
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
    }
    BufferLife& b = lives[it->second];
    if (write) b.first_step = std::min(b.first_step, step);
    b.last_step = std::max(b.last_step, step);
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
  // Scratch of split reductions lives for its own step only.
  std::vector<std::vector<std::size_t>> scratch_ids(planned.steps.size());
  std::size_t max_scratch_params = 0;
  for (std::size_t i = 0; i < planned.steps.size(); ++i) {
    for (const auto& v : planned.steps[i].variants) {
      std::size_t k = 0;
      for (const auto& p : v.params) {
        if (p.scratch_elements <= 0) continue;
        const std::size_t bytes = static_cast<std::size_t>(p.scratch_elements) *
                                  std::max<std::size_t>(element_bytes(p.dtype), 1);
        if (k < scratch_ids[i].size()) {
          lives[scratch_ids[i][k]].bytes = std::max(lives[scratch_ids[i][k]].bytes, bytes);
        } else {
          scratch_ids[i].push_back(lives.size());
          lives.push_back({bytes, i, i, false});
          owners.push_back(static_cast<graph::NodeId>(-1));
        }
        ++k;
      }
      max_scratch_params = std::max(max_scratch_params, k);
    }
  }
  const MemoryPlan mem = plan_memory(lives);
  auto arena = im.allocate(mem.arena_bytes, "the arena of intermediate buffers");
  if (!arena) return arena.error();
  for (std::size_t b = 0; b < lives.size(); ++b) {
    if (owners[b] != static_cast<graph::NodeId>(-1)) {
      im.base_ptr[owners[b]] = static_cast<char*>(*arena) + mem.offsets[b];
    }
  }
  ex->peak_bytes_ = input_bytes + mem.arena_bytes;
  ex->unplanned_bytes_ = input_bytes + mem.total_bytes;
  say("memory: " + std::to_string(input_bytes >> 10) + " KiB inputs, arena " +
      std::to_string(mem.arena_bytes >> 10) + " KiB (" + std::to_string(mem.total_bytes >> 10) +
      " KiB without reuse)");

  // Steps: compile, load and bind pointers.
  cudaEvent_t t0 = nullptr;
  cudaEvent_t t1 = nullptr;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const auto time_us = [&](const std::function<void()>& fn) {
    fn();
    cudaEventRecord(t0, stream);
    constexpr int kReps = 10;
    for (int r = 0; r < kReps; ++r) fn();
    cudaEventRecord(t1, stream);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    return 1000.0 * static_cast<double>(ms) / kReps;
  };
  std::size_t conv_workspace_bytes = 0;
  std::vector<StepPlan> built;
  std::set<std::size_t> failed_groups;
  // A GEMM built with its next kernel's work in cuBLASLt's epilogue, decided at that kernel.
  struct PendingEpilogue {
    std::size_t step = 0;    // the GEMM's index in planned.steps
    std::size_t launch = 0;  // its index in launches_
    std::size_t built = 0;   // its index in built
    const LtGemm* plain = nullptr;
    const LtGemm* fused = nullptr;
    std::string where;
  };
  std::optional<PendingEpilogue> pending;
  for (std::size_t i = 0; i < planned.steps.size(); ++i) {
    StepPlan& s = planned.steps[i];
    std::string failure;
    const std::string where = "group " + std::to_string(s.group) + " " + s.group_name;
    const auto ptr = [&](graph::NodeId n) { return static_cast<void*>(im.pointer(n)); };
    bool absorbed = false;  // this kernel runs in the previous GEMM's epilogue
    switch (s.kind) {
      case StepKind::generated: {
        double default_us = 0;
        double best_us = 1e30;
        std::size_t best = 0;
        std::vector<std::unique_ptr<KernelImage>> loaded;
        std::vector<std::vector<void*>> values;
        for (std::size_t v = 0; v < s.variants.size(); ++v) {
          const auto& k = s.variants[v];
          auto image = options.compile(k.source, where);
          if (!image) {
            if (v == 0) failure = image.error().message;
            loaded.emplace_back();
            values.emplace_back();
            continue;
          }
          auto kernel = KernelImage::load(*image, k.entry, where);
          if (!kernel) {
            if (v == 0) failure = kernel.error().message;
            loaded.emplace_back();
            values.emplace_back();
            continue;
          }
          std::vector<void*> vals;
          std::size_t sk = 0;
          for (const auto& p : k.params) {
            vals.push_back(p.scratch_elements > 0
                               ? static_cast<void*>(static_cast<char*>(*arena) +
                                                    mem.offsets[scratch_ids[i][sk++]])
                               : ptr(p.node));
          }
          loaded.push_back(std::move(*kernel));
          values.push_back(std::move(vals));
        }
        if (!failure.empty()) break;
        if (s.variants.size() > 1) {
          for (std::size_t v = 0; v < s.variants.size(); ++v) {
            if (!loaded[v]) continue;
            std::vector<void*> args;
            for (auto& x : values[v]) args.push_back(&x);
            const auto& k = s.variants[v];
            const double us = time_us(
                [&] { loaded[v]->launch(k.grid, k.block, k.shared_bytes, args.data(), stream); });
            if (cudaGetLastError() != cudaSuccess) continue;
            if (v == 0) default_us = us;
            if (us < best_us) {
              best_us = us;
              best = v;
            }
          }
          const auto& c = s.variants[best].config;
          ex->picks_.push_back(format_pick(where + " block " + std::to_string(c.block) + " items " +
                                               std::to_string(c.items_per_thread) + " rows " +
                                               std::to_string(c.rows_per_block) + " (" +
                                               std::to_string(s.variants.size()) + " configs)",
                                           best_us, default_us));
        }
        if (pending && pending->step + 1 == i && loaded[best]) {
          std::vector<void*> args;
          for (auto& x : values[best]) args.push_back(&x);
          const auto& k = s.variants[best];
          const LtGemm* plain = pending->plain;
          const LtGemm* fused = pending->fused;
          const double separate_us = time_us([&] {
            plain->launch(stream);
            loaded[best]->launch(k.grid, k.block, k.shared_bytes, args.data(), stream);
          });
          const double fused_us = time_us([&] { fused->launch(stream); });
          absorbed = fused_us < separate_us;
          StepPlan& gemm_step = built[pending->built];
          const std::string what = "cuBLASLt " + gemm_step.fused_epilogue->what + " epilogue";
          if (absorbed) {
            ex->launches_[pending->launch] = [fused, w = pending->where](cudaStream_t st) {
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
          ex->picks_.push_back(text);
          pending.reset();
          if (absorbed) {
            // Kept loaded: CUPTI names kernels by handle, and the timing launches ran it.
            im.images.push_back(std::move(loaded[best]));
            break;
          }
        }
        const codegen::GeneratedKernel k = s.variants[best];
        s.name = k.entry;
        im.arg_values.push_back(std::move(values[best]));
        std::vector<void*> args;
        for (auto& x : im.arg_values.back()) args.push_back(&x);
        const KernelImage* image = loaded[best].get();
        im.images.push_back(std::move(loaded[best]));
        ex->launches_.push_back([image, k, args, where](cudaStream_t st) mutable -> std::string {
          const cudaError_t e = image->launch(k.grid, k.block, k.shared_bytes, args.data(), st);
          return e == cudaSuccess ? "" : where + ": launch failed: " + cuda_text(e);
        });
        break;
      }
      case StepKind::gemm: {
        if (!im.lt) {
          cublasLtCreate(&im.lt);
          auto ws = im.allocate(kGemmWorkspace, "the cuBLASLt workspace");
          if (!ws) {
            failure = ws.error().message;
            break;
          }
          im.gemm_workspace = *ws;
        }
        GemmPointers p;
        p.a = ptr(s.gemm->a.node);
        p.b = ptr(s.gemm->b.node);
        p.out = ptr(s.gemm->out.node);
        if (s.gemm->bias_vector) p.bias = ptr(*s.gemm->bias_vector);
        if (s.gemm->bias_matrix) p.c = ptr(s.gemm->bias_matrix->node);
        auto gemm = LtGemm::create(im.lt, *s.gemm, p, im.gemm_workspace, kGemmWorkspace, where);
        if (!gemm) {
          failure = gemm.error().message;
          break;
        }
        if (options.tune) {
          if (auto pick = (*gemm)->tune(stream, 8)) ex->picks_.push_back(where + " " + *pick);
        }
        const LtGemm* lt = gemm->get();
        im.gemms.push_back(std::move(*gemm));
        if (s.fused_epilogue) {
          GemmPointers fp = p;
          fp.out = ptr(s.fused_epilogue->out);
          if (s.fused_epilogue->fused.bias_vector)
            fp.bias = ptr(*s.fused_epilogue->fused.bias_vector);
          auto fused = LtGemm::create(im.lt, s.fused_epilogue->fused, fp, im.gemm_workspace,
                                      kGemmWorkspace, where);
          if (fused && options.tune) (*fused)->tune(stream, 8);
          if (fused) {
            pending =
                PendingEpilogue{i, ex->launches_.size(), built.size(), lt, fused->get(), where};
            im.gemms.push_back(std::move(*fused));
          } else {
            ex->picks_.push_back(where + ": cuBLASLt " + s.fused_epilogue->what +
                                 " epilogue not offered: " + fused.error().message);
            s.writes.pop_back();
            s.fused_epilogue.reset();
          }
        } else if (!s.epilogue_note.empty()) {
          ex->picks_.push_back(
              where + ": GEMM + generated kernel, no cuBLASLt epilogue: " + s.epilogue_note);
        }
        ex->launches_.push_back([lt, where](cudaStream_t st) -> std::string {
          const cublasStatus_t r = lt->launch(st);
          return r == CUBLAS_STATUS_SUCCESS ? "" : where + ": cuBLASLt failed: " + cublas_text(r);
        });
        break;
      }
      case StepKind::conv: {
        auto conv = CudnnConv::create(*s.conv, where);
        if (!conv) {
          failure = conv.error().message;
          break;
        }
        if (options.tune) {
          if (auto pick =
                  (*conv)->tune(stream, ptr(s.conv->x), ptr(s.conv->w),
                                s.conv->bias ? ptr(*s.conv->bias) : nullptr, ptr(s.conv->out))) {
            ex->picks_.push_back(where + " cuDNN " + *pick);
          }
        }
        conv_workspace_bytes = std::max(conv_workspace_bytes, (*conv)->workspace_bytes());
        const CudnnConv* c = conv->get();
        im.convs.push_back(std::move(*conv));
        void* x = ptr(s.conv->x);
        void* w = ptr(s.conv->w);
        void* bias = s.conv->bias ? ptr(*s.conv->bias) : nullptr;
        void* out = ptr(s.conv->out);
        Impl* impl = &im;
        ex->launches_.push_back([c, x, w, bias, out, impl](cudaStream_t st) {
          return c->launch(st, x, w, bias, out, impl->conv_workspace);
        });
        break;
      }
      case StepKind::attention: {
        const AttentionSpec& a = *s.attention;
        auto image = options.compile(attention_source(a), where);
        if (!image) {
          failure = image.error().message;
          break;
        }
        auto kernel = KernelImage::load(*image, "fxscope_attention", where);
        if (!kernel) {
          failure = kernel.error().message;
          break;
        }
        im.arg_values.push_back({ptr(a.q.node), ptr(a.k.node), ptr(a.v.node),
                                 a.bias ? ptr(a.bias->node) : nullptr, ptr(a.out.node)});
        std::vector<void*> args;
        for (auto& x : im.arg_values.back()) args.push_back(&x);
        const long long blocks = attention_blocks(a);
        const int threads = attention_threads(a);
        const std::size_t shared = attention_shared_bytes(a);
        const KernelImage* k = kernel->get();
        im.images.push_back(std::move(*kernel));
        ex->launches_.push_back([k, args, blocks, threads, shared, where](cudaStream_t st) mutable {
          const cudaError_t e = k->launch(blocks, threads, shared, args.data(), st);
          return e == cudaSuccess ? std::string() : where + ": launch failed: " + cuda_text(e);
        });
        break;
      }
    }
    if (absorbed) continue;
    if (failure.empty()) {
      built.push_back(std::move(s));
      continue;
    }
    // A group that cannot be compiled or set up is named and skipped; the rest still runs.
    if (failed_groups.insert(s.group).second) {
      planned.ran_ops -= std::min(planned.ran_ops, s.group_ops);
      planned.skipped.push_back({s.group, s.group_name, s.group_ops, failure});
    }
  }
  planned.steps = std::move(built);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (conv_workspace_bytes > 0) {
    auto ws = im.allocate(conv_workspace_bytes, "the cuDNN workspace");
    if (!ws) return ws.error();
    im.conv_workspace = *ws;
  }
  ex->steps_ = std::move(planned);
  return ex;
}

std::string Executable::launch(cudaStream_t stream, CuptiActivity* tagger, bool check) {
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    if (tagger) tagger->push_step(i);
    std::string err = launches_[i](stream);
    if (tagger) tagger->pop_step();
    if (err.empty() && check) {
      if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
        err = "group " + std::to_string(steps_.steps[i].group) + " " + steps_.steps[i].group_name +
              ": " + cuda_text(e);
      }
    }
    if (!err.empty()) return err;
  }
  return "";
}

std::string Executable::capture(cudaStream_t stream) {
  if (const cudaError_t e = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
      e != cudaSuccess) {
    return "cannot start a CUDA graph capture: " + cuda_text(e);
  }
  const std::string err = launch(stream);
  const cudaError_t end = cudaStreamEndCapture(stream, &graph_);
  if (!err.empty()) return "during CUDA graph capture: " + err;
  if (end != cudaSuccess) return "CUDA graph capture failed: " + cuda_text(end);
  if (const cudaError_t e = cudaGraphInstantiate(&exec_, graph_, 0); e != cudaSuccess) {
    exec_ = nullptr;
    return "cannot instantiate the CUDA graph: " + cuda_text(e);
  }
  return "";
}

std::string Executable::replay(cudaStream_t stream) {
  const cudaError_t e = cudaGraphLaunch(exec_, stream);
  return e == cudaSuccess ? "" : "CUDA graph launch failed: " + cuda_text(e);
}

Result<std::vector<HostOutput>> Executable::read_outputs(cudaStream_t stream) const {
  if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) {
    return make_error("before reading outputs: " + cuda_text(e));
  }
  std::vector<HostOutput> out;
  for (const graph::NodeId n : output_nodes(*impl_->graph)) {
    HostOutput h;
    const auto& meta = impl_->graph->node(n).meta;
    char* p = impl_->pointer(n);
    if (meta && !meta->is_sym_scalar() && p) {
      h.meta = *meta;
      h.bytes.resize(static_cast<std::size_t>(storage_elements(*meta, impl_->hints)) *
                     element_bytes(meta->dtype));
      if (const cudaError_t e =
              cudaMemcpy(h.bytes.data(), p, h.bytes.size(), cudaMemcpyDeviceToHost);
          e != cudaSuccess) {
        return make_error("output " + impl_->graph->node(n).name + ": " + cuda_text(e));
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace fxscope::gpu

namespace fxscope::gpu {

std::string Executable::first_nonfinite(cudaStream_t stream) {
  const graph::Graph& g = *impl_->graph;
  for (std::size_t i = 0; i < launches_.size(); ++i) {
    if (!launches_[i](stream).empty() || cudaStreamSynchronize(stream) != cudaSuccess) return "";
    const StepPlan& step = steps_.steps[i];
    for (const graph::NodeId n : step.writes) {
      const auto& meta = g.node(n).meta;
      char* p = impl_->pointer(n);
      if (!meta || !p || !is_floating(meta->dtype)) continue;
      std::vector<std::byte> host(static_cast<std::size_t>(storage_elements(*meta, impl_->hints)) *
                                  element_bytes(meta->dtype));
      if (cudaMemcpy(host.data(), p, host.size(), cudaMemcpyDeviceToHost) != cudaSuccess) return "";
      const auto count = static_cast<std::int64_t>(host.size() / element_bytes(meta->dtype));
      for (std::int64_t e = 0; e < count; ++e) {
        if (std::isnan(read_element(meta->dtype, host.data(), e))) {
          return "group " + std::to_string(step.group) + " " + step.group_name +
                 " wrote a NaN into " + g.node(n).name;
        }
      }
    }
  }
  return "";
}

}  // namespace fxscope::gpu
