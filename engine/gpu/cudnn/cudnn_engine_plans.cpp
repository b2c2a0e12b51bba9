#include "cudnn/cudnn_engine_plans.h"

#include <algorithm>
#include <utility>

namespace fxscope::gpu {

using namespace cudnn;

namespace {

// More notes than any cuDNN 9 defines.
constexpr std::int64_t kNoteSlots = 32;

struct Candidate {
  CudnnDescriptor config;
  std::int64_t engine = -1;
  bool runtime_compiled = false;
};

bool has_note(const std::vector<int>& notes, int note) {
  for (const int n : notes) {
    if (n == note) return true;
  }
  return false;
}

std::vector<int> notes(const CudnnLibrary& lib, Descriptor engine, int attribute, int type) {
  std::vector<int> out(static_cast<std::size_t>(kNoteSlots));
  std::int64_t count = 0;
  if (lib.backend_get(engine, attribute, type, kNoteSlots, &count, out.data()) !=
      CUDNN_STATUS_SUCCESS) {
    count = 0;
  }
  out.resize(static_cast<std::size_t>(count));
  return out;
}

// The engine configs cuDNN's heuristics (MODE) rank for GRAPH, best first, without those whose
// numerics fp32 must not have (TF32 on tensor cores, inputs converted down); EXCLUDED counts them.
std::vector<Candidate> candidates(const CudnnLibrary& lib, const CudnnDescriptor& graph, int mode,
                                  bool fp32, int& excluded) {
  std::vector<Candidate> out;
  CudnnDescriptor heur(lib, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  if (heur.set_descriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph) != CUDNN_STATUS_SUCCESS ||
      heur.set_int(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode) !=
          CUDNN_STATUS_SUCCESS ||
      heur.finalize() != CUDNN_STATUS_SUCCESS) {
    return out;
  }
  std::int64_t count = 0;
  if (lib.backend_get(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                      &count, nullptr) != CUDNN_STATUS_SUCCESS ||
      count <= 0) {
    return out;
  }
  std::vector<CudnnDescriptor> configs;
  std::vector<Descriptor> raw;
  for (std::int64_t i = 0; i < count; ++i) {
    configs.emplace_back(lib, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    raw.push_back(configs.back().get());
  }
  std::int64_t returned = 0;
  if (lib.backend_get(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                      count, &returned, raw.data()) != CUDNN_STATUS_SUCCESS) {
    return out;
  }
  for (std::int64_t i = 0; i < std::min(returned, count); ++i) {
    Candidate cand;
    cand.config = std::move(configs[static_cast<std::size_t>(i)]);
    CudnnDescriptor engine(lib, CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    Descriptor e = engine.get();
    std::int64_t n = 0;
    if (!e || lib.backend_get(cand.config.get(), CUDNN_ATTR_ENGINECFG_ENGINE,
                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e) != CUDNN_STATUS_SUCCESS) {
      continue;
    }
    const std::vector<int> numeric =
        notes(lib, e, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE);
    if (fp32 && (has_note(numeric, CUDNN_NUMERICAL_NOTE_TENSOR_CORE) ||
                 has_note(numeric, CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS) ||
                 has_note(numeric, CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION))) {
      ++excluded;
      continue;
    }
    cand.runtime_compiled =
        has_note(notes(lib, e, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE),
                 CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION);
    lib.backend_get(e, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &cand.engine);
    out.push_back(std::move(cand));
  }
  return out;
}

// A plan asking more is passed over: the executor allocates one workspace, the largest any of its
// convolutions asks, beside the graph's own buffers.
constexpr std::int64_t kMaxWorkspace = std::int64_t{256} << 20;

}  // namespace

Result<std::vector<CudnnPlan>> cudnn_plans(const CudnnLibrary& lib, const CudnnDescriptor& graph,
                                           bool fp32, std::size_t wanted) {
  std::vector<CudnnPlan> out;
  int excluded = 0;
  int refused = 0;
  int too_big = 0;
  std::string first_refusal;
  std::vector<Candidate> lists[2];
  const int modes[2] = {CUDNN_HEUR_MODE_INSTANT, CUDNN_HEUR_MODE_FALLBACK};
  bool listed[2] = {false, false};
  for (const bool runtime_compiled : {false, true}) {
    if (!out.empty()) break;
    for (int m = 0; m < 2 && out.size() < wanted; ++m) {
      if (!listed[m]) {
        lists[m] = candidates(lib, graph, modes[m], fp32, excluded);
        listed[m] = true;
      }
      for (Candidate& cand : lists[m]) {
        if (out.size() >= wanted) break;
        if (cand.runtime_compiled != runtime_compiled) continue;
        CudnnDescriptor plan(lib, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
        // Deprecated in cuDNN 9.19 like the graph's handle, still honoured and required before.
        plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &lib.handle);
        plan.set_descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cand.config);
        if (const Status s = plan.finalize(); s != CUDNN_STATUS_SUCCESS) {
          if (refused++ == 0) first_refusal = lib.text(s);
          continue;
        }
        std::int64_t workspace = 0;
        std::int64_t n = 0;
        lib.backend_get(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                        &n, &workspace);
        if (workspace > kMaxWorkspace) {
          ++too_big;
          continue;
        }
        CudnnPlan p;
        p.plan = std::move(plan);
        p.workspace = workspace;
        p.engine = "graph engine " + std::to_string(cand.engine) + " (" +
                   (m == 0 ? "instant" : "fallback") + " heuristics" +
                   (runtime_compiled ? ", compiled at run time" : "") + ")";
        out.push_back(std::move(p));
      }
    }
  }
  if (!out.empty()) return out;
  std::string why = "no engine plans it (" + std::to_string(lists[0].size() + lists[1].size()) +
                    " configs offered, " + std::to_string(excluded) +
                    " excluded for TF32 or reduced precision, " + std::to_string(refused) +
                    " refused";
  if (!first_refusal.empty()) why += " (" + first_refusal + ")";
  if (too_big > 0) why += ", " + std::to_string(too_big) + " needing over 256 MiB of workspace";
  return make_error(why + ")");
}

}  // namespace fxscope::gpu
