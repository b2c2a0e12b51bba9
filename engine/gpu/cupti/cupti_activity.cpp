#include "cupti/cupti_activity.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "cupti/cupti_api.h"

namespace fxscope::gpu {
namespace {

constexpr std::size_t kBufferBytes = 8u << 20;

std::mutex g_mutex;
ActivityBatch g_batch;
bool g_active = false;
// Set by the first start; CUPTI calls buffer_completed only after that.
const CuptiApi* g_cupti = nullptr;

std::string demangled(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : (name ? name : "");
  std::free(d);
  return out;
}

void keep(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      KernelRecord r;
      r.name = demangled(k->name);
      r.start = k->start;
      r.end = k->end;
      r.grid = {k->gridX, k->gridY, k->gridZ};
      r.block = {k->blockX, k->blockY, k->blockZ};
      r.registers = k->registersPerThread;
      r.static_smem = k->staticSharedMemory;
      r.dynamic_smem = k->dynamicSharedMemory;
      r.stream = k->streamId;
      r.correlation = k->correlationId;
      r.graph = k->graphId;
      r.graph_node = k->graphNodeId;
      g_batch.records.kernels.push_back(std::move(r));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      g_batch.records.copies.push_back(
          {"memcpy", c->bytes, c->start, c->end, c->streamId, c->correlationId, c->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      g_batch.records.copies.push_back(
          {"memset", s->bytes, s->start, s->end, s->streamId, s->correlationId, s->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
      const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      g_batch.step_of[x->correlationId] = x->externalId;
      break;
    }
    default:
      break;
  }
}

// Buffers are recycled: a fresh 8 MB buffer after every flush would be allocated and
// first-touched inside the next timed call, hundreds of microseconds of host time.
std::mutex g_pool_mutex;
std::vector<std::uint8_t*> g_pool;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    if (!g_pool.empty()) {
      *buffer = g_pool.back();
      g_pool.pop_back();
    } else {
      *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
      if (*buffer) std::memset(*buffer, 0, kBufferBytes);
    }
  }
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUpti_Activity* record = nullptr;
    while (g_cupti->next_record(buffer, valid, &record) == CUPTI_SUCCESS) keep(record);
  }
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  g_pool.push_back(buffer);
}

}  // namespace

Result<std::unique_ptr<CuptiActivity>> CuptiActivity::start() {
  if (g_active) return make_error("CUPTI is already recording in this process");
  auto loaded = cupti_api();
  if (!loaded) return loaded.error();
  const CuptiApi& cupti = **loaded;
  g_cupti = &cupti;
  if (const CUptiResult r = cupti.register_callbacks(buffer_requested, buffer_completed);
      r != CUPTI_SUCCESS) {
    return make_error("CUPTI refused its activity callbacks: " + cupti.text(r));
  }
  for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
    if (const CUptiResult r = cupti.enable(kind); r != CUPTI_SUCCESS) {
      return make_error("CUPTI cannot record activity kind " + std::to_string(kind) + ": " +
                        cupti.text(r));
    }
  }
  {
    std::lock_guard<std::mutex> lock(g_pool_mutex);
    while (g_pool.size() < 4) {
      auto* b = static_cast<std::uint8_t*>(std::aligned_alloc(8, kBufferBytes));
      if (!b) break;
      std::memset(b, 0, kBufferBytes);
      g_pool.push_back(b);
    }
  }
  g_active = true;
  return std::unique_ptr<CuptiActivity>(new CuptiActivity());
}

CuptiActivity::~CuptiActivity() {
  tag_steps(false);
  g_cupti->disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  g_cupti->disable(CUPTI_ACTIVITY_KIND_MEMCPY);
  g_cupti->disable(CUPTI_ACTIVITY_KIND_MEMSET);
  g_cupti->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  g_batch = {};
  g_active = false;
}

void CuptiActivity::tag_steps(bool on) {
  if (on == tagging_) return;
  tagging_ = on;
  // External correlation records name the API call's correlation id, so API records must be on.
  for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                                        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION}) {
    if (on) {
      g_cupti->enable(kind);
    } else {
      g_cupti->disable(kind);
    }
  }
}

void CuptiActivity::record(bool on) {
  for (const CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET}) {
    if (on) {
      g_cupti->enable(kind);
    } else {
      g_cupti->disable(kind);
    }
  }
}

void CuptiActivity::push_step(std::uint64_t step) {
  if (tagging_) g_cupti->push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, step);
}

void CuptiActivity::pop_step() {
  std::uint64_t last = 0;
  if (tagging_) g_cupti->pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

ActivityBatch CuptiActivity::take() {
  g_cupti->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::lock_guard<std::mutex> lock(g_mutex);
  ActivityBatch out = std::move(g_batch);
  g_batch = {};
  std::sort(out.records.kernels.begin(), out.records.kernels.end(),
            [](const KernelRecord& a, const KernelRecord& b) { return a.start < b.start; });
  return out;
}

}  // namespace fxscope::gpu
