// libfxscope_cupti.so: a CUDA injection library (CUDA_INJECTION64_PATH) that records every kernel,
// memcpy, memset and NVTX range of the process with CUPTI's Activity API, and writes them as JSON
// lines to the file named by FXSCOPE_CUPTI_OUT when the process exits. No PyTorch, no Qt: it must
// work in any CUDA process and change what it measures no more than the activity API itself.
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kBufferAlign = 8;

// Records are turned into text only at exit, so buffers hold copies of the raw records plus the
// names CUPTI owns (kernel names stay valid; marker names are copied because CUPTI frees them).
std::mutex g_mutex;
std::vector<std::string> g_lines;
std::unordered_set<std::uint32_t> g_kernel_correlations;
struct ApiRecord {
  std::uint32_t correlation;
  std::uint64_t start;
  std::uint64_t end;
};
std::vector<ApiRecord> g_api;
bool g_started = false;

std::string json_escaped(const char* text) {
  std::string out;
  for (const char* p = text ? text : ""; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string demangled(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : (name ? name : "");
  std::free(d);
  return out;
}

std::string kernel_line(const CUpti_ActivityKernel10& k) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\"kind\":\"kernel\",\"start\":%llu,\"end\":%llu,\"grid\":[%d,%d,%d],"
                "\"block\":[%d,%d,%d],\"registers\":%u,\"static_smem\":%d,\"dynamic_smem\":%d,"
                "\"device\":%u,\"stream\":%u,\"correlation\":%u,\"graph\":%u,\"graph_node\":%llu,"
                "\"name\":\"",
                static_cast<unsigned long long>(k.start), static_cast<unsigned long long>(k.end),
                k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ,
                static_cast<unsigned>(k.registersPerThread), k.staticSharedMemory,
                k.dynamicSharedMemory, k.deviceId, k.streamId, k.correlationId, k.graphId,
                static_cast<unsigned long long>(k.graphNodeId));
  return buf + json_escaped(demangled(k.name).c_str()) + "\"}";
}

std::string copy_line(const char* kind, std::uint64_t bytes, std::uint64_t start, std::uint64_t end,
                      std::uint32_t stream, std::uint32_t correlation, std::uint32_t graph,
                      std::uint64_t graph_node) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "{\"kind\":\"%s\",\"bytes\":%llu,\"start\":%llu,\"end\":%llu,\"stream\":%u,"
                "\"correlation\":%u,\"graph\":%u,\"graph_node\":%llu}",
                kind, static_cast<unsigned long long>(bytes),
                static_cast<unsigned long long>(start), static_cast<unsigned long long>(end),
                stream, correlation, graph, static_cast<unsigned long long>(graph_node));
  return buf;
}

std::string marker_line(const CUpti_ActivityMarker2& m) {
  const char* flag = (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) ? "start"
                     : (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) ? "end"
                                                                  : "instant";
  char buf[200];
  std::snprintf(buf, sizeof buf, "{\"kind\":\"marker\",\"flag\":\"%s\",\"id\":%u,\"ts\":%llu,",
                flag, m.id, static_cast<unsigned long long>(m.timestamp));
  return buf + std::string("\"name\":\"") + json_escaped(m.name) + "\",\"domain\":\"" +
         json_escaped(m.domain) + "\"}";
}

void keep(const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      g_kernel_correlations.insert(k->correlationId);
      g_lines.push_back(kernel_line(*k));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      g_kernel_correlations.insert(c->correlationId);
      g_lines.push_back(copy_line("memcpy", c->bytes, c->start, c->end, c->streamId,
                                  c->correlationId, c->graphId, c->graphNodeId));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      g_kernel_correlations.insert(s->correlationId);
      g_lines.push_back(copy_line("memset", s->bytes, s->start, s->end, s->streamId,
                                  s->correlationId, s->graphId, s->graphNodeId));
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER:
      g_lines.push_back(marker_line(*reinterpret_cast<const CUpti_ActivityMarker2*>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      // Launch times on the host: kernels run later than the NVTX range that launched them, so
      // the range an op's kernel belongs to is found through its launching API call.
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      g_api.push_back({a->correlationId, a->start, a->end});
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlign, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) keep(record);
  }
  std::free(buffer);
}

void write_records() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const char* path = std::getenv("FXSCOPE_CUPTI_OUT");
  if (!path || !*path) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  std::FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "fxscope_cupti: cannot write %s\n", path);
    return;
  }
  for (const auto& line : g_lines) std::fprintf(f, "%s\n", line.c_str());
  // Only the API calls that launched something recorded; the rest would only grow the file.
  for (const auto& a : g_api) {
    if (!g_kernel_correlations.count(a.correlation)) continue;
    std::fprintf(f, "{\"kind\":\"launch\",\"correlation\":%u,\"start\":%llu,\"end\":%llu}\n",
                 a.correlation, static_cast<unsigned long long>(a.start),
                 static_cast<unsigned long long>(a.end));
  }
  std::fclose(f);
}

bool enable(CUpti_ActivityKind kind) {
  const CUptiResult r = cuptiActivityEnable(kind);
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "fxscope_cupti: cannot enable activity %d: %s\n", static_cast<int>(kind),
               text ? text : "?");
  return false;
}

}  // namespace

// Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (g_started) return 1;
  g_started = true;
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "fxscope_cupti: CUPTI refused the activity callbacks\n");
    return 0;
  }
  bool ok = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  ok = enable(CUPTI_ACTIVITY_KIND_MEMCPY) && ok;
  ok = enable(CUPTI_ACTIVITY_KIND_MEMSET) && ok;
  ok = enable(CUPTI_ACTIVITY_KIND_MARKER) && ok;
  // Launch records cost the most (every API call is timed); FXSCOPE_CUPTI_API=runtime or none
  // trades eager op attribution for less overhead.
  const char* api = std::getenv("FXSCOPE_CUPTI_API");
  const std::string which = api ? api : "all";
  if (which == "all" || which == "runtime") ok = enable(CUPTI_ACTIVITY_KIND_RUNTIME) && ok;
  if (which == "all") ok = enable(CUPTI_ACTIVITY_KIND_DRIVER) && ok;
  std::atexit(write_records);
  return ok ? 1 : 0;
}

// NVTX_INJECTION64_PATH may name this library too: NVTX then reaches the libcupti already loaded
// (by this library or by the framework), never a second copy from another path.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(const void* table) {
  void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (!cupti) return 0;
  using Init = int (*)(const void*);
  auto init = reinterpret_cast<Init>(dlsym(cupti, "InitializeInjectionNvtx2"));
  return init ? init(table) : 0;
}
