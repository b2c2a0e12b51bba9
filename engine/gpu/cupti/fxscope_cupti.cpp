// libfxscope_cupti.so: a CUDA injection library (CUDA_INJECTION64_PATH) that records every kernel,
// memcpy, memset and NVTX range of the process with CUPTI's Activity API, and writes them as JSON
// lines to the file named by FXSCOPE_CUPTI_OUT when the process exits. No PyTorch, no Qt: it must
// work in any CUDA process and change what it measures no more than the activity API itself.
//
// Overhead is kept to what CUPTI's own instrumentation costs: only the activity kinds fxscope
// reads, no API records unless asked for (FXSCOPE_CUPTI_API=all), large buffers handed to CUPTI
// already zeroed (calloc gets fresh zero pages from the kernel, so CUPTI need not clear 32 MB on
// the launching thread, which it does by default), and no formatting while the process runs:
// completed buffers are copied into compact structs, and text is written once at exit.
// bench/bench_cupti_overhead compares it with the Activity API by itself.
#include <cupti.h>
#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

constexpr std::size_t kBufferBytes = 32u << 20;

struct Kernel {
  std::uint64_t start, end, graph_node;
  std::int32_t grid[3], block[3];
  std::uint32_t registers;
  std::int32_t static_smem, dynamic_smem;
  std::uint32_t device, stream, correlation, graph, name;
};

struct Copy {
  bool memset;
  std::uint64_t bytes, start, end, graph_node;
  std::uint32_t stream, correlation, graph;
};

struct Marker {
  std::uint64_t ts;
  std::uint32_t id, flags, name, domain;
};

struct Api {
  std::uint32_t correlation;
  std::uint64_t start, end;
};

// Everything recorded, behind one mutex (CUPTI completes buffers from its own thread).
struct Store {
  std::mutex mutex;
  std::vector<Kernel> kernels;
  std::vector<Copy> copies;
  std::vector<Marker> markers;
  std::vector<Api> api;
  // Names CUPTI owns may be freed with their module (kernels) or their buffer (markers): each is
  // copied once, found again by its pointer (checked by content, in case an address is reused).
  std::vector<std::string> names{""};
  std::unordered_map<const char*, std::uint32_t> by_pointer;

  std::uint32_t intern(const char* text) {
    if (!text) return 0;
    const auto it = by_pointer.find(text);
    if (it != by_pointer.end() && names[it->second] == text) return it->second;
    const auto id = static_cast<std::uint32_t>(names.size());
    names.emplace_back(text);
    by_pointer[text] = id;
    return id;
  }
};

Store& store() {
  static Store* s = new Store;  // never destroyed: atexit handlers of other libraries may run late
  return *s;
}

bool g_started = false;

void keep(Store& s, const CUpti_Activity* record) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      s.kernels.push_back({k->start,
                           k->end,
                           k->graphNodeId,
                           {k->gridX, k->gridY, k->gridZ},
                           {k->blockX, k->blockY, k->blockZ},
                           k->registersPerThread,
                           k->staticSharedMemory,
                           k->dynamicSharedMemory,
                           k->deviceId,
                           k->streamId,
                           k->correlationId,
                           k->graphId,
                           s.intern(k->name)});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      s.copies.push_back({false, c->bytes, c->start, c->end, c->graphNodeId, c->streamId,
                          c->correlationId, c->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      s.copies.push_back({true, m->bytes, m->start, m->end, m->graphNodeId, m->streamId,
                          m->correlationId, m->graphId});
      break;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(record);
      s.markers.push_back({m->timestamp, m->id, static_cast<std::uint32_t>(m->flags),
                           s.intern(m->name), s.intern(m->domain)});
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      // Launch times on the host: kernels run later than the NVTX range that launched them, so
      // the range an op's kernel belongs to is found through its launching API call.
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      s.api.push_back({a->correlationId, a->start, a->end});
      break;
    }
    default:
      break;
  }
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  // calloc's alignment (16) is more than CUPTI's 8; see ZEROED_OUT_ACTIVITY_BUFFER below.
  *buffer = static_cast<std::uint8_t*>(std::calloc(1, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  Store& s = store();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) keep(s, record);
  }
  std::free(buffer);
}

// JSON string contents of TEXT.
std::string escaped(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string demangled(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

using ull = unsigned long long;

void write_kernel(std::FILE* f, const Kernel& k, const std::string& name) {
  std::fprintf(f,
               "{\"kind\":\"kernel\",\"start\":%llu,\"end\":%llu,\"grid\":[%d,%d,%d],"
               "\"block\":[%d,%d,%d],\"registers\":%u,\"static_smem\":%d,\"dynamic_smem\":%d,"
               "\"device\":%u,\"stream\":%u,\"correlation\":%u,\"graph\":%u,\"graph_node\":%llu,"
               "\"name\":\"%s\"}\n",
               static_cast<ull>(k.start), static_cast<ull>(k.end), k.grid[0], k.grid[1], k.grid[2],
               k.block[0], k.block[1], k.block[2], k.registers, k.static_smem, k.dynamic_smem,
               k.device, k.stream, k.correlation, k.graph, static_cast<ull>(k.graph_node),
               name.c_str());
}

void write_records() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  const char* path = std::getenv("FXSCOPE_CUPTI_OUT");
  if (!path || !*path) return;
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "fxscope_cupti: cannot write %s\n", path);
    return;
  }
  std::vector<std::string> kernel_names(s.names.size());
  std::unordered_set<std::uint32_t> launched;
  for (const Kernel& k : s.kernels) {
    if (kernel_names[k.name].empty()) kernel_names[k.name] = escaped(demangled(s.names[k.name]));
    write_kernel(f, k, kernel_names[k.name]);
    launched.insert(k.correlation);
  }
  for (const Copy& c : s.copies) {
    std::fprintf(f,
                 "{\"kind\":\"%s\",\"bytes\":%llu,\"start\":%llu,\"end\":%llu,\"stream\":%u,"
                 "\"correlation\":%u,\"graph\":%u,\"graph_node\":%llu}\n",
                 c.memset ? "memset" : "memcpy", static_cast<ull>(c.bytes),
                 static_cast<ull>(c.start), static_cast<ull>(c.end), c.stream, c.correlation,
                 c.graph, static_cast<ull>(c.graph_node));
    launched.insert(c.correlation);
  }
  for (const Marker& m : s.markers) {
    const char* flag = (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) ? "start"
                       : (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) ? "end"
                                                                    : "instant";
    std::fprintf(f,
                 "{\"kind\":\"marker\",\"flag\":\"%s\",\"id\":%u,\"ts\":%llu,\"name\":\"%s\","
                 "\"domain\":\"%s\"}\n",
                 flag, m.id, static_cast<ull>(m.ts), escaped(s.names[m.name]).c_str(),
                 escaped(s.names[m.domain]).c_str());
  }
  // Only the API calls that launched something recorded.
  for (const Api& a : s.api) {
    if (!launched.count(a.correlation)) continue;
    std::fprintf(f, "{\"kind\":\"launch\",\"correlation\":%u,\"start\":%llu,\"end\":%llu}\n",
                 a.correlation, static_cast<ull>(a.start), static_cast<ull>(a.end));
  }
  std::fclose(f);
}

bool report(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "fxscope_cupti: %s: %s\n", what, text ? text : "?");
  return false;
}

bool enable(CUpti_ActivityKind kind) {
  return report(cuptiActivityEnable(kind), "cannot enable an activity kind");
}

}  // namespace

// Called by the CUDA driver at cuInit when CUDA_INJECTION64_PATH names this library.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  if (g_started) return 1;
  g_started = true;
  // Every buffer buffer_requested hands over is zeroed already.
  std::uint8_t zeroed = 1;
  std::size_t zeroed_size = sizeof zeroed;
  report(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size,
                                   &zeroed),
         "cannot hand CUPTI zeroed buffers");
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "fxscope_cupti: CUPTI refused the activity callbacks\n");
    return 0;
  }
  bool ok = enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  ok = enable(CUPTI_ACTIVITY_KIND_MEMCPY) && ok;
  ok = enable(CUPTI_ACTIVITY_KIND_MEMSET) && ok;
  ok = enable(CUPTI_ACTIVITY_KIND_MARKER) && ok;
  // FXSCOPE_CUPTI_API=all adds a record of every runtime and driver call (the host time of each
  // launch), which costs about 1-2 us a launch. fxscope's driver does not need it: its NVTX
  // ranges end after a synchronize, so kernels are placed by their own start.
  const char* api = std::getenv("FXSCOPE_CUPTI_API");
  if (api && std::string(api) == "all") {
    ok = enable(CUPTI_ACTIVITY_KIND_RUNTIME) && ok;
    ok = enable(CUPTI_ACTIVITY_KIND_DRIVER) && ok;
  }
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
