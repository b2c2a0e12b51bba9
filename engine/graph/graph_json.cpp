#include "fxscope/graph/graph_json.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "fxscope/core/text.h"

namespace fxscope::graph {

using nlohmann::json;

namespace {

// Nesting deeper than this (arguments, subgraphs) is refused rather than recursed into.
constexpr int kMaxJsonDepth = 64;

json arg_to_json(const Argument& a) {
  switch (a.kind()) {
    case Argument::Kind::none:
      return nullptr;
    case Argument::Kind::boolean:
      return a.as_bool();
    case Argument::Kind::integer:
      return a.as_int();
    case Argument::Kind::floating: {
      const double v = a.as_float();
      if (std::isfinite(v)) return v;
      return json{{"float", std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf")}};
    }
    case Argument::Kind::string:
      return a.text();
    case Argument::Kind::symbol:
      return json{{"symbol", a.text()}};
    case Argument::Kind::raw:
      return json{{"raw", a.text()}};
    case Argument::Kind::node:
      return json{{"node", a.as_node()}};
    case Argument::Kind::list:
    case Argument::Kind::tuple:
    case Argument::Kind::slice:
    case Argument::Kind::dict: {
      json items = json::array();
      for (const Argument& item : a.items()) items.push_back(arg_to_json(item));
      if (a.kind() == Argument::Kind::list) return items;
      const char* key = a.kind() == Argument::Kind::tuple   ? "tuple"
                        : a.kind() == Argument::Kind::slice ? "slice"
                                                            : "dict";
      return json{{key, std::move(items)}};
    }
  }
  return nullptr;
}

json dims_to_json(const std::vector<Dim>& dims) {
  json out = json::array();
  for (const Dim& d : dims) {
    if (d.is_symbolic()) {
      out.push_back(d.expr);
    } else {
      out.push_back(d.value);
    }
  }
  return out;
}

json node_to_json(const Node& n) {
  json j = {{"name", n.name}, {"op", to_string(n.op)}, {"target", n.target}};
  json args = json::array();
  for (const Argument& a : n.args) args.push_back(arg_to_json(a));
  j["args"] = std::move(args);
  if (!n.kwargs.empty()) {
    json kwargs = json::array();
    for (const KeywordArgument& kw : n.kwargs)
      kwargs.push_back(json{kw.first, arg_to_json(kw.second)});
    j["kwargs"] = std::move(kwargs);
  }
  if (n.meta) {
    if (n.meta->is_sym_scalar()) {
      j["meta"] = {{"sym", n.meta->sym}};
    } else {
      j["meta"] = {{"dtype", n.meta->dtype},
                   {"sizes", dims_to_json(n.meta->sizes)},
                   {"strides", dims_to_json(n.meta->strides)},
                   {"device", n.meta->device}};
    }
  }
  if (n.source) {
    j["source"] = {{"file", n.source->file},
                   {"line", n.source->line},
                   {"function", n.source->function},
                   {"code", n.source->code}};
  }
  if (!n.module_path.empty()) j["module"] = n.module_path;
  if (n.num_users) j["num_users"] = *n.num_users;
  if (!n.raw_annotation.empty()) j["raw_annotation"] = n.raw_annotation;
  if (!n.raw_text.empty()) j["raw_text"] = n.raw_text;
  return j;
}

std::optional<NodeId> text_to_id(std::string_view s) {
  const auto v = text::parse_int(s);
  if (!v || *v < 0 || *v > std::numeric_limits<NodeId>::max()) return std::nullopt;
  return static_cast<NodeId>(*v);
}

// Reading: every check names the JSON path ("graphs[0].graph.nodes[3].args[1]") it failed at.
class JsonReader {
 public:
  std::optional<Error> error;

  void fail(const std::string& path, const std::string& expected) {
    if (!error) error = make_error("fxscope JSON: " + path + ": expected " + expected);
  }

  const json* field(const json& j, const char* key, const std::string& path, bool required = true) {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) fail(path, std::string("a field \"") + key + "\"");
      return nullptr;
    }
    return &*it;
  }

  std::string string(const json& j, const char* key, const std::string& path,
                     bool required = true) {
    const json* v = field(j, key, path, required);
    if (v == nullptr) return {};
    if (!v->is_string()) {
      fail(path + "." + key, "a string");
      return {};
    }
    return v->get<std::string>();
  }

  std::optional<std::int64_t> integer(const json& v, const std::string& path) {
    if (v.is_number_unsigned() &&
        v.get<std::uint64_t>() >
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(path, "a 64-bit integer");
      return std::nullopt;
    }
    if (!v.is_number_integer()) {
      fail(path, "an integer");
      return std::nullopt;
    }
    return v.get<std::int64_t>();
  }

  Argument arg(const json& j, const std::string& path, std::size_t node_count, int depth) {
    if (depth > kMaxJsonDepth) {
      fail(path, "at most " + std::to_string(kMaxJsonDepth) + " levels of nesting");
      return {};
    }
    if (j.is_null()) return {};
    if (j.is_boolean()) return Argument::boolean(j.get<bool>());
    if (j.is_number_integer()) return Argument::integer(integer(j, path).value_or(0));
    if (j.is_number_float()) return Argument::floating(j.get<double>());
    if (j.is_string()) return Argument::string(j.get<std::string>());
    if (j.is_array()) return Argument::list(items(j, path, node_count, depth));
    if (!j.is_object() || j.size() != 1) {
      fail(path, "an argument (null, bool, number, string, array or a one-key object)");
      return {};
    }
    const std::string& key = j.begin().key();
    const json& v = j.begin().value();
    if ((key == "symbol" || key == "raw" || key == "float") && !v.is_string()) {
      fail(path + "." + key, "a string");
      return {};
    }
    if (key == "symbol") return Argument::symbol(v.get<std::string>());
    if (key == "raw") return Argument::raw(v.get<std::string>());
    if (key == "float") {
      const std::string s = v.get<std::string>();
      if (s == "nan") return Argument::floating(std::numeric_limits<double>::quiet_NaN());
      if (s == "inf" || s == "-inf") {
        const double inf = std::numeric_limits<double>::infinity();
        return Argument::floating(s == "inf" ? inf : -inf);
      }
      fail(path + ".float", "\"inf\", \"-inf\" or \"nan\"");
      return {};
    }
    if (key == "node") {
      const auto id = integer(v, path + ".node");
      if (id && (*id < 0 || static_cast<std::size_t>(*id) >= node_count)) {
        fail(path + ".node", "a node index below " + std::to_string(node_count));
      }
      return Argument::node(static_cast<NodeId>(id.value_or(0)));
    }
    if (key == "tuple" || key == "slice" || key == "dict") {
      if (!v.is_array()) {
        fail(path + "." + key, "an array");
        return {};
      }
      std::vector<Argument> list = items(v, path + "." + key, node_count, depth);
      if (key == "tuple") return Argument::tuple(std::move(list));
      if (key == "dict") {
        if (list.size() % 2 != 0) {
          fail(path + ".dict", "keys and values alternating");
          return {};
        }
        return Argument::dict(std::move(list));
      }
      if (list.size() != 3) {
        fail(path + ".slice", "three items");
        return {};
      }
      return Argument::slice(std::move(list[0]), std::move(list[1]), std::move(list[2]));
    }
    fail(path, "one of the argument keys symbol, raw, float, node, tuple, slice, dict");
    return {};
  }

  std::vector<Argument> items(const json& j, const std::string& path, std::size_t node_count,
                              int depth) {
    std::vector<Argument> out;
    out.reserve(j.size());
    for (std::size_t i = 0; i < j.size() && !error; ++i) {
      out.push_back(arg(j[i], path + "[" + std::to_string(i) + "]", node_count, depth + 1));
    }
    return out;
  }

  std::vector<Dim> dims(const json& meta, const char* key, const std::string& path) {
    std::vector<Dim> out;
    const json* list = field(meta, key, path);
    if (list == nullptr) return out;
    if (!list->is_array()) {
      fail(path + "." + key, "an array");
      return out;
    }
    for (const json& d : *list) {
      if (d.is_string()) {
        out.push_back(Dim::symbolic(d.get<std::string>()));
      } else if (auto v = integer(d, path + "." + key)) {
        out.push_back(Dim::constant(*v));
      }
    }
    return out;
  }

  void meta(const json& j, const std::string& path, Node& n) {
    if (!j.is_object()) return fail(path, "an object");
    TensorMeta m;
    if (j.contains("sym")) {
      m.sym = string(j, "sym", path);
    } else {
      m.dtype = string(j, "dtype", path);
      m.sizes = dims(j, "sizes", path);
      m.strides = dims(j, "strides", path);
      m.device = string(j, "device", path);
    }
    n.meta = std::move(m);
  }

  Node node(const json& j, const std::string& path, std::size_t node_count) {
    Node n;
    if (!j.is_object()) {
      fail(path, "a node object");
      return n;
    }
    n.name = string(j, "name", path);
    const auto op = op_kind_from_string(string(j, "op", path));
    if (!op && !error) fail(path + ".op", "an FX op (placeholder, call_function, ...)");
    n.op = op.value_or(OpKind::call_function);
    n.target = string(j, "target", path);
    if (const json* args = field(j, "args", path)) {
      if (!args->is_array()) return fail(path + ".args", "an array"), n;
      n.args = items(*args, path + ".args", node_count, 0);
    }
    if (const json* kwargs = field(j, "kwargs", path, false)) {
      for (std::size_t i = 0; i < kwargs->size() && !error; ++i) {
        const json& kw = (*kwargs)[i];
        const std::string p = path + ".kwargs[" + std::to_string(i) + "]";
        if (!kwargs->is_array() || !kw.is_array() || kw.size() != 2 || !kw[0].is_string()) {
          return fail(p, "a [name, value] pair"), n;
        }
        n.kwargs.emplace_back(kw[0].get<std::string>(), arg(kw[1], p + "[1]", node_count, 0));
      }
    }
    if (const json* m = field(j, "meta", path, false)) meta(*m, path + ".meta", n);
    if (const json* s = field(j, "source", path, false)) {
      SourceLocation loc;
      loc.file = string(*s, "file", path + ".source");
      if (const json* line = field(*s, "line", path + ".source")) {
        loc.line = integer(*line, path + ".source.line").value_or(0);
      }
      loc.function = string(*s, "function", path + ".source");
      loc.code = string(*s, "code", path + ".source");
      n.source = std::move(loc);
    }
    n.module_path = string(j, "module", path, false);
    if (const json* users = field(j, "num_users", path, false)) {
      n.num_users = integer(*users, path + ".num_users");
    }
    n.raw_annotation = string(j, "raw_annotation", path, false);
    n.raw_text = string(j, "raw_text", path, false);
    return n;
  }

  Graph graph(const json& j, const std::string& path, int depth) {
    Graph g;
    if (depth > kMaxJsonDepth) return fail(path, "subgraphs nested at most 64 deep"), g;
    if (!j.is_object()) return fail(path, "a graph object"), g;
    g.set_name(string(j, "name", path));
    const json* nodes = field(j, "nodes", path);
    if (nodes == nullptr || !nodes->is_array()) return fail(path + ".nodes", "an array"), g;
    for (std::size_t i = 0; i < nodes->size() && !error; ++i) {
      const std::string p = path + ".nodes[" + std::to_string(i) + "]";
      Node n = node((*nodes)[i], p, nodes->size());
      if (!error && !g.add_node(std::move(n))) fail(p + ".name", "a name unique in its graph");
    }
    if (const json* subs = field(j, "subgraphs", path, false)) {
      if (!subs->is_array()) return fail(path + ".subgraphs", "an array"), g;
      for (std::size_t i = 0; i < subs->size() && !error; ++i) {
        g.add_subgraph(
            graph((*subs)[i], path + ".subgraphs[" + std::to_string(i) + "]", depth + 1));
      }
    }
    return g;
  }
};

}  // namespace

json graph_to_json(const Graph& graph) {
  json nodes = json::array();
  for (const Node& n : graph.nodes()) nodes.push_back(node_to_json(n));
  json j = {{"name", graph.name()}, {"nodes", std::move(nodes)}};
  if (!graph.subgraphs().empty()) {
    json subs = json::array();
    for (const Graph& g : graph.subgraphs()) subs.push_back(graph_to_json(g));
    j["subgraphs"] = std::move(subs);
  }
  return j;
}

json to_json(const Document& doc) {
  json graphs = json::array();
  for (const DocumentGraph& entry : doc.graphs()) {
    json g = {{"label", entry.label},
              {"compile_id", entry.compile_id},
              {"level", entry.level},
              {"graph", graph_to_json(entry.graph)}};
    if (!entry.annotations.empty()) {
      json annotations = json::object();
      for (const auto& [id, value] : entry.annotations) annotations[std::to_string(id)] = value;
      g["annotations"] = std::move(annotations);
    }
    graphs.push_back(std::move(g));
  }
  return json{{"format", kJsonFormat},
              {"version", kJsonVersion},
              {"metadata", doc.metadata()},
              {"graphs", std::move(graphs)}};
}

std::string to_json_text(const Document& doc, int indent) {
  // Names and code come from logs and may hold invalid UTF-8; replace it rather than throw.
  return to_json(doc).dump(indent, ' ', false, json::error_handler_t::replace);
}

Result<Graph> graph_from_json(const json& j) {
  JsonReader r;
  Graph g = r.graph(j, "graph", 0);
  if (r.error) return *r.error;
  return g;
}

Result<Document> document_from_json(const json& j) {
  JsonReader r;
  if (!j.is_object()) return make_error("fxscope JSON: expected an object at the top level");
  const std::string format = r.string(j, "format", "$");
  if (r.error || format != kJsonFormat) {
    return make_error("fxscope JSON: \"format\" is \"" + format + "\", expected \"" +
                      std::string(kJsonFormat) + "\"");
  }
  const json* version = r.field(j, "version", "$");
  if (version == nullptr || !version->is_number_integer() ||
      version->get<std::int64_t>() != kJsonVersion) {
    return make_error("fxscope JSON: unsupported version " +
                      (version == nullptr ? std::string("(none)") : version->dump()) +
                      "; this build reads version " + std::to_string(kJsonVersion));
  }
  Document doc;
  if (const json* meta = r.field(j, "metadata", "$", false)) {
    if (!meta->is_object()) return make_error("fxscope JSON: $.metadata: expected an object");
    doc.metadata() = *meta;
  }
  const json* graphs = r.field(j, "graphs", "$");
  if (graphs == nullptr || !graphs->is_array()) {
    return make_error("fxscope JSON: $.graphs: expected an array");
  }
  for (std::size_t i = 0; i < graphs->size() && !r.error; ++i) {
    const json& g = (*graphs)[i];
    const std::string path = "graphs[" + std::to_string(i) + "]";
    if (!g.is_object()) return make_error("fxscope JSON: " + path + ": expected an object");
    DocumentGraph entry;
    entry.label = r.string(g, "label", path);
    entry.compile_id = r.string(g, "compile_id", path);
    entry.level = r.string(g, "level", path);
    if (const json* graph = r.field(g, "graph", path))
      entry.graph = r.graph(*graph, path + ".graph", 0);
    if (r.error) return *r.error;
    if (const json* annotations = r.field(g, "annotations", path, false)) {
      if (!annotations->is_object())
        return make_error("fxscope JSON: " + path + ".annotations: expected an object");
      for (const auto& [key, value] : annotations->items()) {
        const auto id = text_to_id(key);
        if (!id || *id >= entry.graph.size() || !value.is_object()) {
          return make_error("fxscope JSON: " + path + ".annotations." + key +
                            ": expected a node index of the graph mapped to an object");
        }
        entry.annotations[*id] = value;
      }
    }
    doc.add_graph(std::move(entry));
  }
  if (r.error) return *r.error;
  return doc;
}

Result<Document> parse_document(std::string_view text) {
  const json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error("fxscope JSON: the text is not valid JSON");
  return document_from_json(j);
}

}  // namespace fxscope::graph
