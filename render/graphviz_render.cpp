#include "graphviz_render.h"

#include <dlfcn.h>
// Only for the types and the functions' signatures (decltype below): nothing here calls Graphviz
// by name, and render/ does not link it, so a direct call would fail to link rather than bring
// back a NEEDED libgvc that stops fxscope-cli starting on hosts without Graphviz.
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace fxscope::render {
namespace {

// The sonames of Graphviz 2.42+'s libraries (Debian 12's libgvc6 and libcgraph6); a Graphviz
// with another ABI would have another soname, so there is no fallback to the unversioned name.
constexpr const char* kGvcSoname = "libgvc.so.6";
constexpr const char* kCgraphSoname = "libcgraph.so.6";

// The Graphviz functions this adapter calls, typed by the headers' own declarations.
struct Api {
  decltype(&gvContext) gv_context = nullptr;
  decltype(&gvPluginList) gv_plugin_list = nullptr;
  decltype(&gvLayout) gv_layout = nullptr;
  decltype(&gvRenderData) gv_render_data = nullptr;
  decltype(&gvFreeRenderData) gv_free_render_data = nullptr;
  decltype(&gvFreeLayout) gv_free_layout = nullptr;
  decltype(&agseterr) ag_seterr = nullptr;
  decltype(&aglasterr) ag_lasterr = nullptr;
  decltype(&agmemread) ag_memread = nullptr;
  decltype(&agclose) ag_close = nullptr;
  decltype(&agfstsubg) ag_fstsubg = nullptr;
  decltype(&agnxtsubg) ag_nxtsubg = nullptr;
  decltype(&agnameof) ag_nameof = nullptr;
  decltype(&agnnodes) ag_nnodes = nullptr;
  decltype(&agnedges) ag_nedges = nullptr;
  decltype(&agget) ag_get = nullptr;
};

// The API, or why it could not be had ("" when it could).
struct Loaded {
  Api api;
  std::string problem;
};

// dlerror's text for a library (or one it needs) that is not there reads "NAME: cannot open
// shared object file: ..."; that becomes "NAME not found", naming the library to install. When
// the loader gives no name (an LD_AUDIT module hid the file), the library asked for is meant.
// Any other failure (a broken or foreign file) keeps dlerror's own words.
std::string open_problem(const char* soname) {
  const char* why = ::dlerror();
  const std::string text = why != nullptr ? why : "";
  const auto missing = text.find("cannot open shared object file");
  if (missing != std::string::npos) {
    const auto colon = text.rfind(": ", missing);
    return (colon != std::string::npos && colon > 0 ? text.substr(0, colon) : soname) +
           " not found";
  }
  return std::string(soname) + " could not be loaded (" + text + ")";
}

// Resolves NAME in LIBRARY into FN; false, with PROBLEM said, when the library lacks it.
template <class Fn>
bool resolve(void* library, const char* soname, const char* name, Fn& fn, std::string& problem) {
  void* symbol = ::dlsym(library, name);
  if (symbol == nullptr) {
    problem = std::string(soname) + " has no " + name + " (not the Graphviz this was built for)";
    return false;
  }
  // POSIX guarantees that dlsym's object pointer converts to the function's pointer type.
  fn = reinterpret_cast<Fn>(symbol);
  return true;
}

// The handles stay open for the life of the process: Graphviz keeps plugin state and a context
// that must outlive every graph, and unloading it buys nothing.
Loaded open_graphviz(const char* gvc_soname, const char* cgraph_soname) {
  Loaded out;
  // libgvc first: it is the one the user installs (and it needs libcgraph, so a missing
  // libcgraph is reported by its own name from here too).
  void* gvc = ::dlopen(gvc_soname, RTLD_NOW | RTLD_LOCAL);
  if (gvc == nullptr) {
    out.problem = open_problem(gvc_soname);
    return out;
  }
  void* cgraph = ::dlopen(cgraph_soname, RTLD_NOW | RTLD_LOCAL);
  if (cgraph == nullptr) {
    out.problem = open_problem(cgraph_soname);
    return out;
  }
  Api& a = out.api;
  std::string& p = out.problem;
  const bool all = resolve(gvc, gvc_soname, "gvContext", a.gv_context, p) &&
                   resolve(gvc, gvc_soname, "gvPluginList", a.gv_plugin_list, p) &&
                   resolve(gvc, gvc_soname, "gvLayout", a.gv_layout, p) &&
                   resolve(gvc, gvc_soname, "gvRenderData", a.gv_render_data, p) &&
                   resolve(gvc, gvc_soname, "gvFreeRenderData", a.gv_free_render_data, p) &&
                   resolve(gvc, gvc_soname, "gvFreeLayout", a.gv_free_layout, p) &&
                   resolve(cgraph, cgraph_soname, "agseterr", a.ag_seterr, p) &&
                   resolve(cgraph, cgraph_soname, "aglasterr", a.ag_lasterr, p) &&
                   resolve(cgraph, cgraph_soname, "agmemread", a.ag_memread, p) &&
                   resolve(cgraph, cgraph_soname, "agclose", a.ag_close, p) &&
                   resolve(cgraph, cgraph_soname, "agfstsubg", a.ag_fstsubg, p) &&
                   resolve(cgraph, cgraph_soname, "agnxtsubg", a.ag_nxtsubg, p) &&
                   resolve(cgraph, cgraph_soname, "agnameof", a.ag_nameof, p) &&
                   resolve(cgraph, cgraph_soname, "agnnodes", a.ag_nnodes, p) &&
                   resolve(cgraph, cgraph_soname, "agnedges", a.ag_nedges, p) &&
                   resolve(cgraph, cgraph_soname, "agget", a.ag_get, p);
  if (!all) out.api = Api{};
  return out;
}

// Loaded on first use, once: a function-local static is initialised exactly once even when
// several threads get here together.
const Loaded& graphviz() {
  static const Loaded loaded = open_graphviz(kGvcSoname, kCgraphSoname);
  return loaded;
}

// Only called once graphviz() loaded.
const Api& api() {
  return graphviz().api;
}

std::mutex& graphviz_mutex() {
  static std::mutex mutex;
  return mutex;
}

// One context for the process: creating one loads the plugin configuration. Under the mutex.
GVC_t* context() {
  static GVC_t* gvc = api().gv_context();
  return gvc;
}

// Parses DOT with Graphviz's messages kept rather than printed, so that the caller can name
// the problem in its own one-line error.
Agraph_t* read_dot(std::string_view dot, std::string& problem) {
  const std::string text(dot);
  api().ag_seterr(AGMAX);
  Agraph_t* graph = api().ag_memread(text.c_str());
  if (graph == nullptr) {
    const char* last = api().ag_lasterr();
    problem = last != nullptr && *last != '\0' ? std::string(last) : "not a DOT graph";
    while (!problem.empty() && (problem.back() == '\n' || problem.back() == ' '))
      problem.pop_back();
  }
  api().ag_seterr(AGWARN);
  return graph;
}

std::size_t count_clusters(Agraph_t* graph) {
  std::size_t count = 0;
  for (Agraph_t* sub = api().ag_fstsubg(graph); sub != nullptr; sub = api().ag_nxtsubg(sub)) {
    if (std::string_view(api().ag_nameof(sub)).starts_with("cluster")) ++count;
    count += count_clusters(sub);
  }
  return count;
}

}  // namespace

const std::string& graphviz_missing() {
  return graphviz().problem;
}

std::string missing_graphviz_message(std::string_view format, std::string_view problem) {
  return std::string(format) + " export needs Graphviz (" + std::string(problem) +
         "): install graphviz, or use --format dot";
}

std::string probe_graphviz(const char* gvc_soname, const char* cgraph_soname) {
  return open_graphviz(gvc_soname, cgraph_soname).problem;
}

bool can_render(std::string_view format) {
  if (!graphviz_missing().empty()) return false;
  const std::lock_guard lock(graphviz_mutex());
  int size = 0;
  // Output formats are "device" plugins ("svg", "png" ...; "render" lists cairo, gd ...).
  char** list = api().gv_plugin_list(context(), "device", &size, nullptr);
  bool found = false;
  for (int i = 0; i < size; ++i) {
    if (format == list[i]) found = true;
    std::free(list[i]);  // gvPluginList allocates with malloc
  }
  std::free(list);
  return found;
}

Result<std::string> render_dot(std::string_view dot, std::string_view format) {
  if (const std::string& missing = graphviz_missing(); !missing.empty()) {
    return make_error(missing_graphviz_message(format, missing));
  }
  const bool available = can_render(format);
  const std::lock_guard lock(graphviz_mutex());
  if (!available) {
    return make_error("Graphviz has no '" + std::string(format) +
                      "' renderer here (Debian's libgvc6 ships svg in its core plugin and png in "
                      "its cairo and gd plugins)");
  }
  std::string problem;
  Agraph_t* graph = read_dot(dot, problem);
  if (graph == nullptr) return make_error("DOT rejected by Graphviz: " + problem);
  GVC_t* gvc = context();
  Result<std::string> out = make_error("Graphviz dot could not lay out the graph");
  if (api().gv_layout(gvc, graph, "dot") == 0) {
    char* data = nullptr;
    unsigned int length = 0;
    const std::string type(format);
    if (api().gv_render_data(gvc, graph, type.c_str(), &data, &length) == 0 && data != nullptr) {
      out = std::string(data, length);
    } else {
      out = make_error("Graphviz could not render " + type);
    }
    if (data != nullptr) api().gv_free_render_data(data);
    api().gv_free_layout(gvc, graph);
  }
  api().ag_close(graph);
  return out;
}

Result<DotCounts> parse_dot(std::string_view dot) {
  if (const std::string& missing = graphviz_missing(); !missing.empty()) {
    return make_error("reading DOT back needs Graphviz (" + missing + "): install graphviz");
  }
  const std::lock_guard lock(graphviz_mutex());
  std::string problem;
  Agraph_t* graph = read_dot(dot, problem);
  if (graph == nullptr) return make_error("DOT rejected by Graphviz: " + problem);
  DotCounts counts;
  counts.nodes = std::size_t(api().ag_nnodes(graph));
  counts.edges = std::size_t(api().ag_nedges(graph));
  counts.clusters = count_clusters(graph);
  if (const char* label = api().ag_get(graph, const_cast<char*>("label")); label != nullptr) {
    counts.label = label;
  }
  api().ag_close(graph);
  return counts;
}

}  // namespace fxscope::render
