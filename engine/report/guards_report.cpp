#include "fxscope/report/guards_report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <limits>
#include <map>
#include <utility>

#include "fxscope/guards/dynamo_text.h"
#include "fxscope/guards/guard_parser.h"
#include "fxscope/report/summary_json.h"

namespace fxscope::report {
namespace {

using nlohmann::json;
using trace::CompileId;
using trace::CompileUnit;

bool same_frame(const CompileId& a, const CompileId& b) {
  return a.frame_id == b.frame_id && a.compiled_autograd_id == b.compiled_autograd_id;
}

std::string comma_joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string function_of(const CompileUnit& unit) {
  const auto* frame = unit.compiled_frame();
  return frame ? frame->function : std::string();
}

Result<const CompileUnit*> find(const trace::TraceLog& log, const std::optional<CompileId>& id) {
  if (!id) return static_cast<const CompileUnit*>(nullptr);
  if (const auto* unit = log.find_unit(*id)) return unit;
  std::vector<std::string> known;
  for (const auto& u : log.units()) known.push_back(u.id.str());
  return make_error(log.path() + ": no compile unit " + id->str() + " (the log has " +
                    (known.empty() ? std::string("none") : comma_joined(known)) + ")");
}

// "[8, ?]": ? is a dynamic entry, which the tensor check lets through.
std::string dims_text(const guards::Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out += (i ? ", " : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
  }
  return out + "]";
}

// "16x32" as a tensor spec writes it; "scalar" for a 0-d tensor.
std::string extents_text(const guards::Dims& dims) {
  if (dims.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    out += (i ? "x" : "") + (dims[i] ? std::to_string(*dims[i]) : std::string("?"));
  }
  return out;
}

json dims_json(const guards::Dims& dims) {
  json out = json::array();
  for (const auto& d : dims) out.push_back(d ? json(*d) : json(nullptr));
  return out;
}

std::string device_text(const guards::TensorMatch& m) {
  if (m.backend == "CPU") return "cpu";
  std::string type = m.backend.empty() ? std::string("cuda") : m.backend;
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type + ":" + std::to_string(m.device_index);
}

std::string device_text(const guards::Device& d) {
  return d.index < 0 ? d.type : d.type + ":" + std::to_string(d.index);
}

// Whether any guard of SET reads SOURCE (canonical form), in its tensor check or its code.
bool reads(const guards::GuardSet& set, const std::string& source) {
  return std::any_of(set.guards.begin(), set.guards.end(), [&](const guards::Guard& g) {
    return g.source == source || g.code.find(source) != std::string::npos;
  });
}

std::vector<std::string> input_sources(const guards::ProposedInput& input) {
  std::vector<std::string> sources;
  for (const auto& t : input.tensors) sources.push_back(guards::canonical_source(t.source));
  for (const auto& c : input.constants) sources.push_back(guards::canonical_source(c.source));
  return sources;
}

// Dynamo's lookup in one frame's cache: entries newest first, up to the first whose guards all
// pass.
FrameVerdict check_frame(std::vector<const CompileUnit*> cache,
                         const guards::ProposedInput& input) {
  std::sort(cache.begin(), cache.end(), [](const CompileUnit* a, const CompileUnit* b) {
    return a->id.frame_compile_id > b->id.frame_compile_id;
  });
  FrameVerdict frame;
  frame.frame_id = cache.front()->id.frame_id;
  frame.compiled_autograd_id = cache.front()->id.compiled_autograd_id;
  frame.function = function_of(*cache.front());
  frame.newest = cache.front()->id.without_attempt();
  std::vector<std::pair<CompileId, guards::GuardSet>> entries;
  for (const CompileUnit* u : cache) {
    if (u->guards()) entries.emplace_back(u->id.without_attempt(), guards::parse_unit_guards(*u));
  }
  for (const auto& source : input_sources(input)) {
    if (std::none_of(entries.begin(), entries.end(),
                     [&](const auto& e) { return reads(e.second, source); })) {
      frame.unguarded.push_back(guards::strip_local_scope(source));
    }
  }
  for (const auto& [id, set] : entries) {
    frame.entries.push_back({id, guards::evaluate_guards(set, input)});
    if (frame.entries.back().evaluation.reused) {
      frame.reused = id;
      break;
    }
  }
  return frame;
}

std::string gap_lines(const Warnings& gaps, const std::string& indent) {
  std::string out;
  for (const auto& g : gaps)
    out += indent + "assumed to hold: " + g.where + ": " + g.message + "\n";
  return out;
}

}  // namespace

Result<GuardListing> list_guards(const trace::TraceLog& log, const std::optional<CompileId>& unit) {
  auto only = find(log, unit);
  if (!only) return only.error();
  GuardListing listing{log.path(), {}};
  for (const auto& u : log.units()) {
    if (*only && &u != *only) continue;
    listing.units.push_back({u.id.without_attempt(), function_of(u), u.guards() != nullptr,
                             guards::parse_unit_guards(u)});
  }
  return listing;
}

Result<InputReport> evaluate_input(const trace::TraceLog& log, const std::optional<CompileId>& unit,
                                   const guards::ProposedInput& input) {
  auto only = find(log, unit);
  if (!only) return only.error();
  InputReport report{log.path(), input, {}};
  // The cache of each frame in compile order; a unit without guards installed no entry.
  std::vector<std::vector<const CompileUnit*>> caches;
  for (const auto& u : log.units()) {
    if (*only &&
        (!same_frame(u.id, (*only)->id) || u.id.frame_compile_id > (*only)->id.frame_compile_id)) {
      continue;
    }
    auto it = std::find_if(caches.begin(), caches.end(),
                           [&](const auto& c) { return same_frame(c.front()->id, u.id); });
    if (it == caches.end()) {
      caches.push_back({&u});
    } else {
      it->push_back(&u);
    }
  }
  for (auto& cache : caches) report.frames.push_back(check_frame(std::move(cache), input));
  return report;
}

namespace {

// Dynamo's recompile limit as the run configured it: every compilation_metrics record carries
// the Dynamo config, whose key was cache_size_limit before it was renamed recompile_limit.
int recompile_limit(const trace::TraceLog& log) {
  for (const auto& u : log.units()) {
    if (!u.metrics) continue;
    for (const std::string_view key : {"\\\"recompile_limit\\\": ", "\\\"cache_size_limit\\\": "}) {
      const auto at = u.metrics->envelope.find(key);
      if (at == std::string_view::npos) continue;
      // A run may lift the limit with sys.maxsize (9223372036854775807): read saturating.
      long long limit = 0;
      for (std::size_t i = at + key.size(); i < u.metrics->envelope.size(); ++i) {
        const char c = u.metrics->envelope[i];
        if (c < '0' || c > '9') break;
        limit = std::min<long long>(limit * 10 + (c - '0'), std::numeric_limits<int>::max());
      }
      if (limit > 0) return static_cast<int>(limit);
    }
  }
  return 8;  // Dynamo's default
}

std::vector<RecompileLimitHit> limit_hits(const trace::TraceLog& log) {
  const int limit = recompile_limit(log);
  std::map<int, RecompileLimitHit> frames;
  for (const auto& u : log.units()) {
    if (u.id.frame_id < 0 || u.id.compiled_autograd_id >= 0) continue;
    auto& hit = frames[u.id.frame_id];
    hit.frame_id = u.id.frame_id;
    if (hit.function.empty()) hit.function = function_of(u);
    ++hit.compiles;
    hit.limit = limit;
  }
  std::vector<RecompileLimitHit> hits;
  for (const auto& [frame, hit] : frames) {
    if (hit.compiles >= limit) hits.push_back(hit);
  }
  return hits;
}

std::vector<RankedRecompileCause> rank_causes(const std::vector<guards::RecompileCheck>& checks) {
  std::vector<RankedRecompileCause> ranked;
  for (const auto& check : checks) {
    for (const auto& cause : check.causes) {
      auto it = std::find_if(ranked.begin(), ranked.end(), [&](const RankedRecompileCause& r) {
        return r.cause.kind == cause.kind && r.cause.source == cause.source;
      });
      if (it == ranked.end()) {
        ranked.push_back({cause, {}});
        it = std::prev(ranked.end());
      }
      // A cause counts once per recompile, however many cache entries it rejected.
      if (it->compile_ids.empty() || it->compile_ids.back() != check.compile_id) {
        it->compile_ids.push_back(check.compile_id);
      }
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.count() > b.count(); });
  return ranked;
}

}  // namespace

Result<RecompileReport> check_recompiles(const trace::TraceLog& log,
                                         const std::optional<CompileId>& unit) {
  auto only = find(log, unit);
  if (!only) return only.error();
  RecompileReport report{log.path(), {}, {}, {}};
  for (auto& check : guards::replay_recompiles(log)) {
    if (*only && !same_frame(check.compile_id, (*only)->id)) continue;
    report.recompiles.push_back(std::move(check));
  }
  report.ranked = rank_causes(report.recompiles);
  for (auto& hit : limit_hits(log)) {
    if (*only && hit.frame_id != (*only)->id.frame_id) continue;
    report.limit_hits.push_back(std::move(hit));
  }
  return report;
}

std::string recompile_causes_text(const RecompileReport& report) {
  std::string out;
  if (!report.ranked.empty()) out += "why it recompiled, most often first:\n";
  for (const auto& r : report.ranked) {
    const auto& c = r.cause;
    out += "  " + std::to_string(r.count()) + "x " + c.kind +
           (c.source.empty() ? "" : " of " + c.source);
    if (!c.before.empty() || !c.after.empty()) {
      out += ": " + (c.before.empty() ? std::string("?") : c.before) + " -> " +
             (c.after.empty() ? std::string("?") : c.after);
    }
    std::vector<std::string> ids;
    for (const auto& id : r.compile_ids) ids.push_back(id.str());
    out += "  [" + comma_joined(ids) + "]\n";
    if (!c.where.empty()) out += "      at " + c.where + "\n";
    out += "      fix: " + c.fix + "\n";
  }
  for (const auto& hit : report.limit_hits) {
    out += "frame " + std::to_string(hit.frame_id) +
           (hit.function.empty() ? "" : " (" + hit.function + ")") + " compiled " +
           std::to_string(hit.compiles) + " times, the recompile limit (" +
           std::to_string(hit.limit) +
           "): Dynamo stops compiling it and runs later misses eagerly (raise "
           "torch._dynamo.config.recompile_limit only after removing the causes above)\n";
  }
  return out;
}

json recompile_causes_json(const RecompileReport& report) {
  json ranked = json::array();
  for (const auto& r : report.ranked) {
    const auto& c = r.cause;
    json ids = json::array();
    for (const auto& id : r.compile_ids) ids.push_back(id.str());
    ranked.push_back({{"kind", c.kind},
                      {"source", c.source},
                      {"before", c.before.empty() ? json(nullptr) : json(c.before)},
                      {"after", c.after.empty() ? json(nullptr) : json(c.after)},
                      {"where", c.where.empty() ? json(nullptr) : json(c.where)},
                      {"fix", c.fix},
                      {"count", r.count()},
                      {"compile_ids", ids}});
  }
  json hits = json::array();
  for (const auto& hit : report.limit_hits) {
    hits.push_back({{"frame_id", hit.frame_id},
                    {"function", hit.function},
                    {"compiles", hit.compiles},
                    {"limit", hit.limit}});
  }
  return {{"ranked", ranked}, {"limit_hits", hits}};
}

std::string to_text(const GuardListing& listing) {
  std::string out = "guards of " + listing.path + "\n";
  out += "(? is a dynamic size or stride: any value passes the tensor check)\n";
  for (const auto& u : listing.units) {
    out += "\n[" + u.compile_id.str() + "]" + (u.function.empty() ? "" : "  " + u.function);
    std::map<std::string, std::size_t> kinds;
    for (const auto& g : u.guards.guards) ++kinds[std::string(guards::to_string(g.kind))];
    out += "  " + std::to_string(u.guards.guards.size()) + " guards";
    std::string sep = " (";
    for (const auto& [kind, count] : kinds) {
      out += sep + std::to_string(count) + " " + kind;
      sep = ", ";
    }
    out += kinds.empty() ? "\n" : ")\n";
    if (!u.has_guards)
      out += "  no guard tree in the log: the compile failed or installed nothing\n";
    // Only these kinds depend on what the caller passes; ids and ambient state are counted.
    std::string demands;
    for (const auto& g : u.guards.guards) {
      if (g.kind == guards::GuardKind::kTensorMatch && g.tensor) {
        const auto& m = *g.tensor;
        demands += "    " + guards::strip_local_scope(m.source) + " is a " + m.tensor_class + " " +
                   std::string(m.dtype.short_name) + " on " + device_text(m) + ", size " +
                   dims_text(m.sizes) + ", stride " + dims_text(m.strides) +
                   (m.requires_grad ? ", requiring grad" : "") + "\n";
      } else if (g.kind == guards::GuardKind::kConstant || g.kind == guards::GuardKind::kLength ||
                 g.kind == guards::GuardKind::kShape) {
        demands += "    " + guards::strip_local_scope(g.code) + "\n";
      }
    }
    if (!demands.empty()) out += "  recompiles unless:\n" + demands;
    for (const auto& w : u.guards.warnings) {
      out += "  not understood, assumed to hold: " + w.where + ": " + w.message + "\n";
    }
  }
  return out;
}

json to_json(const GuardListing& listing) {
  json units = json::array();
  for (const auto& u : listing.units) {
    json kinds = json::object();
    json tensors = json::array();
    json constants = json::array();
    json shapes = json::array();
    for (const auto& g : u.guards.guards) {
      const std::string kind(guards::to_string(g.kind));
      kinds[kind] = kinds.value(kind, 0) + 1;
      if (g.kind == guards::GuardKind::kTensorMatch && g.tensor) {
        const auto& m = *g.tensor;
        tensors.push_back({{"source", m.source},
                           {"class", m.tensor_class},
                           {"dtype", std::string(m.dtype.short_name)},
                           {"device", device_text(m)},
                           {"requires_grad", m.requires_grad},
                           {"sizes", dims_json(m.sizes)},
                           {"strides", dims_json(m.strides)}});
      } else if (g.kind == guards::GuardKind::kConstant && g.value) {
        constants.push_back({{"source", g.source}, {"value", guards::python_repr(*g.value)}});
      } else if (g.kind == guards::GuardKind::kShape || g.kind == guards::GuardKind::kLength) {
        shapes.push_back(g.code);
      }
    }
    units.push_back({{"compile_id", u.compile_id.str()},
                     {"function", u.function},
                     {"has_guards", u.has_guards},
                     {"guard_count", u.guards.guards.size()},
                     {"kinds", kinds},
                     {"tensors", tensors},
                     {"constants", constants},
                     {"shape_guards", shapes},
                     {"warnings", to_json(u.guards.warnings)}});
  }
  return {{"path", listing.path}, {"units", units}};
}

std::string to_text(const InputReport& report) {
  // The input as the user wrote it: x = 16x32 f32 stride 32x1 cuda:0, act = 'relu'.
  std::vector<std::string> given;
  for (const auto& t : report.input.tensors) {
    std::string item = guards::strip_local_scope(t.source) + " =";
    if (t.sizes) item += " " + extents_text(*t.sizes);
    if (t.dtype) item += " " + std::string(t.dtype->short_name);
    if (t.strides) item += " stride " + extents_text(*t.strides);
    if (t.device) item += " " + device_text(*t.device);
    if (t.requires_grad) item += *t.requires_grad ? " grad" : " nograd";
    given.push_back(std::move(item));
  }
  for (const auto& c : report.input.constants) {
    given.push_back(guards::strip_local_scope(c.source) + " = " + guards::python_repr(c.value));
  }
  std::string out = "guards of " + report.path + "\ninput: " + comma_joined(given) + "\n";
  for (const auto& f : report.frames) {
    out += "\nframe " + std::to_string(f.frame_id) + (f.function.empty() ? "" : "  " + f.function) +
           "  (cache up to " + f.newest.str() + ")\n";
    if (!f.unguarded.empty()) {
      out += "  no guard of this frame reads " + comma_joined(f.unguarded) + "\n";
    }
    for (const auto& e : f.entries) {
      const auto& ev = e.evaluation;
      out += "  " + e.compile_id.str() + ": ";
      out += ev.reused ? "reused (" + std::to_string(ev.checked) + " guards checked, " +
                             std::to_string(ev.kept) + " left as compiled, " +
                             std::to_string(ev.assumed) + " assumed)\n"
                       : ev.reason + "\n";
      out += gap_lines(ev.gaps, "    ");
    }
    out += f.reused ? "  => reuses " + f.reused->str() + "\n"
                    : "  => recompiles: no cache entry accepts this input\n";
  }
  return out;
}

json to_json(const InputReport& report) {
  json tensors = json::array();
  for (const auto& t : report.input.tensors) {
    tensors.push_back(
        {{"source", guards::canonical_source(t.source)},
         {"sizes", t.sizes ? dims_json(*t.sizes) : json(nullptr)},
         {"strides", t.strides ? dims_json(*t.strides) : json(nullptr)},
         {"dtype", t.dtype ? json(std::string(t.dtype->short_name)) : json(nullptr)},
         {"device", t.device ? json(device_text(*t.device)) : json(nullptr)},
         {"requires_grad", t.requires_grad ? json(*t.requires_grad) : json(nullptr)}});
  }
  json constants = json::array();
  for (const auto& c : report.input.constants) {
    constants.push_back(
        {{"source", guards::canonical_source(c.source)}, {"value", guards::python_repr(c.value)}});
  }
  json frames = json::array();
  for (const auto& f : report.frames) {
    json entries = json::array();
    for (const auto& e : f.entries) {
      const auto& ev = e.evaluation;
      entries.push_back({{"compile_id", e.compile_id.str()},
                         {"reused", ev.reused},
                         {"reason", ev.reused ? json(nullptr) : json(ev.reason)},
                         {"checked", ev.checked},
                         {"kept", ev.kept},
                         {"assumed", ev.assumed},
                         {"gaps", to_json(ev.gaps)}});
    }
    frames.push_back({{"frame_id", f.frame_id},
                      {"function", f.function},
                      {"newest", f.newest.str()},
                      {"entries", entries},
                      {"reused", f.reused ? json(f.reused->str()) : json(nullptr)},
                      {"recompiles", !f.reused.has_value()},
                      {"unguarded", f.unguarded}});
  }
  return {{"path", report.path},
          {"input", {{"tensors", tensors}, {"constants", constants}}},
          {"frames", frames}};
}

std::string to_text(const RecompileReport& report) {
  const auto matched = std::count_if(report.recompiles.begin(), report.recompiles.end(),
                                     [](const auto& c) { return c.match; });
  std::string out = "recompiles of " + report.path + ": " +
                    std::to_string(report.recompiles.size()) + " replayed, " +
                    std::to_string(matched) + " as recorded\n";
  for (const auto& c : report.recompiles) {
    out += "\n[" + c.compile_id.str() + "] " + (c.match ? "matches" : "DIFFERS") + "\n";
    out += c.match ? "  recorded and predicted:\n" : "  recorded:\n";
    for (const auto& line : c.recorded) out += "    " + line + "\n";
    if (!c.match) {
      out += "  predicted:\n";
      for (const auto& line : c.predicted) out += "    " + line + "\n";
    }
    out += gap_lines(c.gaps, "  ");
  }
  const std::string causes = recompile_causes_text(report);
  if (!causes.empty()) out += "\n" + causes;
  return out;
}

json to_json(const RecompileReport& report) {
  json recompiles = json::array();
  for (const auto& c : report.recompiles) {
    recompiles.push_back({{"compile_id", c.compile_id.str()},
                          {"recorded", c.recorded},
                          {"predicted", c.predicted},
                          {"match", c.match},
                          {"gaps", to_json(c.gaps)}});
  }
  json out = recompile_causes_json(report);
  out["path"] = report.path;
  out["recompiles"] = recompiles;
  return out;
}

}  // namespace fxscope::report
