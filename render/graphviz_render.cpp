#include "graphviz_render.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace fxscope::render {
namespace {

std::mutex& graphviz_mutex() {
  static std::mutex mutex;
  return mutex;
}

// One context for the process: creating one loads the plugin configuration. Under the mutex.
GVC_t* context() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

// Parses DOT with Graphviz's messages kept rather than printed, so that the caller can name
// the problem in its own one-line error.
Agraph_t* read_dot(std::string_view dot, std::string& problem) {
  const std::string text(dot);
  agseterr(AGMAX);
  Agraph_t* graph = agmemread(text.c_str());
  if (graph == nullptr) {
    const char* last = aglasterr();
    problem = last != nullptr && *last != '\0' ? std::string(last) : "not a DOT graph";
    while (!problem.empty() && (problem.back() == '\n' || problem.back() == ' '))
      problem.pop_back();
  }
  agseterr(AGWARN);
  return graph;
}

std::size_t count_clusters(Agraph_t* graph) {
  std::size_t count = 0;
  for (Agraph_t* sub = agfstsubg(graph); sub != nullptr; sub = agnxtsubg(sub)) {
    if (std::string_view(agnameof(sub)).starts_with("cluster")) ++count;
    count += count_clusters(sub);
  }
  return count;
}

}  // namespace

bool can_render(std::string_view format) {
  const std::lock_guard lock(graphviz_mutex());
  int size = 0;
  // Output formats are "device" plugins ("svg", "png" ...; "render" lists cairo, gd ...).
  char** list = gvPluginList(context(), "device", &size, nullptr);
  bool found = false;
  for (int i = 0; i < size; ++i) {
    if (format == list[i]) found = true;
    std::free(list[i]);  // gvPluginList allocates with malloc
  }
  std::free(list);
  return found;
}

Result<std::string> render_dot(std::string_view dot, std::string_view format) {
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
  if (gvLayout(gvc, graph, "dot") == 0) {
    char* data = nullptr;
    unsigned int length = 0;
    const std::string type(format);
    if (gvRenderData(gvc, graph, type.c_str(), &data, &length) == 0 && data != nullptr) {
      out = std::string(data, length);
    } else {
      out = make_error("Graphviz could not render " + type);
    }
    if (data != nullptr) gvFreeRenderData(data);
    gvFreeLayout(gvc, graph);
  }
  agclose(graph);
  return out;
}

Result<DotCounts> parse_dot(std::string_view dot) {
  const std::lock_guard lock(graphviz_mutex());
  std::string problem;
  Agraph_t* graph = read_dot(dot, problem);
  if (graph == nullptr) return make_error("DOT rejected by Graphviz: " + problem);
  DotCounts counts;
  counts.nodes = std::size_t(agnnodes(graph));
  counts.edges = std::size_t(agnedges(graph));
  counts.clusters = count_clusters(graph);
  if (const char* label = agget(graph, const_cast<char*>("label")); label != nullptr) {
    counts.label = label;
  }
  agclose(graph);
  return counts;
}

}  // namespace fxscope::render
