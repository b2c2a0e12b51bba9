#include "fxscope/trace/trace_builder.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "fxscope/core/text.h"
#include "fxscope/trace/json_scan.h"

namespace fxscope::trace {

namespace {

using Json = nlohmann::json;

// A corrupt file could warn once per line; past this many the rest are only counted.
constexpr std::size_t kMaxWarnings = 100;

// Kinds that are most of a log's records and hold nothing this module serves (fake-tensor
// descriptions): their envelopes get a structural check and a count, no DOM.
bool counted_only(std::string_view kind) {
  return kind == "describe_storage" || kind == "describe_tensor" || kind == "describe_source";
}

// Kinds read into typed fields (artifact kinds other than kOther are understood as well).
bool interpreted(std::string_view kind) {
  static constexpr std::array<std::string_view, 8> kKinds{"str",
                                                          "dynamo_start",
                                                          "compilation_metrics",
                                                          "bwd_compilation_metrics",
                                                          "compilation_metrics_runtime",
                                                          "bwd_compilation_metrics_runtime",
                                                          "guard_added_fast",
                                                          "create_symbol"};
  return std::find(kKinds.begin(), kKinds.end(), kind) != kKinds.end();
}

// The members of the JSON object TEXT named in KEYS, each parsed on its own; the others are only
// scanned. Discarded when TEXT is not a sound object or a wanted member is broken.
Json parse_members(std::string_view text, std::initializer_list<std::string_view> keys) {
  Json out = Json::object();
  bool broken = false;
  const bool sound = for_each_member(text, [&](std::string_view key, std::string_view value) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) return true;
    Json member = Json::parse(value, nullptr, false);
    if (member.is_discarded()) {
      broken = true;
      return false;
    }
    out[std::string(key)] = std::move(member);
    return true;
  });
  return sound && !broken ? out : Json(Json::value_t::discarded);
}

int get_int(const Json& j, const char* key, int fallback) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

std::string get_string(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// AOTInductor, and Inductor before PyTorch 2.6, log the post-grad graph only as the
// `after_post_grad_graph` artifact (one per graph Inductor compiled).
void name_post_grad_graphs(CompileUnit& unit) {
  if (unit.find(ArtifactKind::kPostGradGraph) != nullptr) return;
  for (Artifact& a : unit.artifacts) {
    if (a.name == "after_post_grad_graph") a.kind = ArtifactKind::kPostGradGraph;
  }
}

// Marks each Inductor product of a training unit as forward or backward: Inductor compiles the
// forward first, and the backward's products start after the forward's output code.
void assign_directions(CompileUnit& unit) {
  const bool training =
      std::any_of(unit.artifacts.begin(), unit.artifacts.end(), [](const auto& a) {
        return a.kind == ArtifactKind::kAotBackwardGraph || a.kind == ArtifactKind::kAotJointGraph;
      });
  if (!training) return;
  struct State {
    bool seen_output = false;
    Direction direction = Direction::kForward;
  };
  std::map<int, State> attempts;
  for (auto& a : unit.artifacts) {
    State& st = attempts[a.id.attempt];
    const bool starts_inductor = a.kind == ArtifactKind::kFxGraphRunnable ||
                                 a.kind == ArtifactKind::kPostGradGraph ||
                                 a.name == "before_post_grad_graph";
    if (starts_inductor && st.seen_output) st.direction = Direction::kBackward;
    const bool per_direction = starts_inductor || a.kind == ArtifactKind::kOutputCode ||
                               a.kind == ArtifactKind::kTritonKernelInfo ||
                               a.kind == ArtifactKind::kProvenanceMappings;
    if (per_direction) a.direction = st.direction;
    if (a.kind == ArtifactKind::kOutputCode) st.seen_output = true;
  }
}

}  // namespace

void TraceBuilder::warn(std::size_t line, std::string message) {
  if (log_.warnings_.size() >= kMaxWarnings) {
    ++silenced_warnings_;
    return;
  }
  log_.warnings_.push_back({log_.path() + ":" + std::to_string(line), std::move(message)});
}

void TraceBuilder::bad_line(const RawRecord& record, std::string_view why) {
  ++log_.stats_.bad_lines;
  constexpr std::size_t kShown = 60;
  std::string shown(record.whole.substr(0, kShown));
  std::replace_if(
      shown.begin(), shown.end(), [](char c) { return c < ' ' && c != '\t'; }, '?');
  warn(record.line,
       std::string(why) + ", found \"" + shown + (record.whole.size() > kShown ? "...\"" : "\""));
}

void TraceBuilder::count_kind(std::string_view kind, bool understood) {
  auto [it, inserted] = kind_index_.try_emplace(std::string(kind), log_.stats_.kinds.size());
  if (inserted) log_.stats_.kinds.push_back({std::string(kind), 0, understood});
  ++log_.stats_.kinds[it->second].count;
}

void TraceBuilder::add(const RawRecord& record) {
  if (record.json.empty()) {
    bad_line(record, record.whole.front() == '\t'
                         ? "payload line (TAB) with no record before it"
                         : "expected a glog prefix (\"V1129 12:42:26.033000 458 f.py:1] \") and a "
                           "JSON envelope");
    return;
  }
  const auto head = scan_envelope(record.json);
  if (!head || head->kind.empty()) {
    bad_line(record, head ? "the JSON envelope names no record kind" : "broken JSON envelope");
    return;
  }
  if (counted_only(head->kind)) {
    ++good_records_;
    count_kind(head->kind, false);
    return;
  }
  if (head->kind == "chromium_event") {
    ++good_records_;
    count_kind(head->kind, true);
    add_chromium_event(record, head->id);
    return;
  }
  try {
    if (route(record, *head)) ++good_records_;
  } catch (const Json::exception& e) {
    warn(record.line, std::string(head->kind) + " record with an unexpected layout: " + e.what());
  }
}

void TraceBuilder::add_chromium_event(const RawRecord& record, const CompileId& envelope_id) {
  // A payload that is not an event is counted, not warned of one by one: finish() says how many.
  const auto event = ChromiumEvent::from_payload(record.payload, record.line);
  if (!event) {
    if (unread_events_++ == 0) first_unread_event_ = record.line;
    return;
  }
  // The envelope's id routes it like every other record; events logged after the compile (a
  // kernel autotuned at its first call) have none and name their compile in args.
  std::optional<CompileId> id;
  if (envelope_id.valid()) {
    id = envelope_id;
  } else {
    id = event->args_compile_id();
  }
  if (!id || !id->valid()) return;
  // Held until finish(): an event must not create a unit or move its first line (the first
  // event of a compile comes before its dynamo_start).
  pending_events_[id->without_attempt()].push_back(*event);
}

Stack TraceBuilder::read_stack(const Json& frames) const {
  Stack stack;
  if (!frames.is_array()) return stack;
  for (const auto& f : frames) {
    if (!f.is_object()) continue;
    StackFrame frame;
    const int index = get_int(f, "filename", -1);
    frame.file = index >= 0 && static_cast<std::size_t>(index) < strings_.size()
                     ? strings_[static_cast<std::size_t>(index)]
                     : std::string("<str ").append(std::to_string(index)).append(">");
    frame.line = get_int(f, "line", 0);
    frame.function = get_string(f, "name");
    frame.code = get_string(f, "loc");
    stack.push_back(std::move(frame));
  }
  return stack;
}

CompileUnit& TraceBuilder::unit_for(const CompileId& id, std::size_t line) {
  const CompileId key = id.without_attempt();
  auto [it, inserted] = unit_index_.try_emplace(key, log_.units_.size());
  if (inserted) {
    CompileUnit unit;
    unit.id = key;
    unit.first_line = line;
    log_.units_.push_back(std::move(unit));
  }
  CompileUnit& unit = log_.units_[it->second];
  unit.final_attempt = std::max(unit.final_attempt, id.attempt);
  return unit;
}

bool TraceBuilder::route(const RawRecord& record, const EnvelopeHead& head) {
  const std::string_view kind = head.kind;
  // Only small bodies are parsed into a DOM; metrics and unknown kinds stay text.
  // Shape guards and symbols carry Dynamo's whole framework stack beside the few fields read
  // (most of a dynamic-shape log's bytes): only those members are parsed.
  const bool shape_record = kind == "guard_added_fast" || kind == "create_symbol";
  const bool needs_body =
      kind == "str" || kind == "dynamo_start" || kind == "artifact" || kind == "graph_dump";
  const Json body =
      shape_record
          ? parse_members(head.body, {"expr", "symbol", "val", "vr", "source", "user_stack"})
      : needs_body ? Json::parse(head.body, nullptr, false)
                   : Json::object();
  if (body.is_discarded()) {
    bad_line(record, "broken JSON envelope");
    return false;
  }
  if (kind == "str") {
    count_kind(kind, true);
    if (body.is_array() && body.size() == 2 && body[0].is_string() && body[1].is_number_integer()) {
      const auto index = body[1].get<std::size_t>();
      if (index >= strings_.size()) strings_.resize(index + 1);
      strings_[index] = body[0].get<std::string>();
    }
    return true;
  }
  Artifact artifact;
  artifact.id = head.id;
  artifact.line = record.line;
  artifact.envelope = record.json;
  artifact.payload = record.payload;
  artifact.name = std::string(kind);
  if (kind == "artifact") {
    artifact.name = get_string(body, "name");
    artifact.encoding = get_string(body, "encoding");
  } else if (kind == "graph_dump") {
    // AOTInductor's code files: `{"graph_dump": {"name": "inductor_aot_wrapper_code", ...}}`.
    if (std::string name = get_string(body, "name"); !name.empty()) artifact.name = std::move(name);
  }
  artifact.kind = artifact_kind(kind, artifact.name);
  const bool known =
      artifact.kind != ArtifactKind::kOther || interpreted(kind) || export_record(kind);
  count_kind(
      kind == "artifact" ? std::string("artifact:").append(artifact.name) : std::string(kind),
      known);

  CompileUnit* unit = artifact.id.valid() ? &unit_for(artifact.id, record.line) : nullptr;
  if (unit != nullptr && kind == "dynamo_start") {
    unit->stack = read_stack(body.value("stack", Json::array()));
  } else if (unit != nullptr &&
             (kind == "compilation_metrics" || kind == "bwd_compilation_metrics")) {
    auto metrics = CompilationMetrics::from_envelope(record.json, kind);
    if (!metrics) {
      warn(record.line, std::string(kind) + ": " + metrics.error().message);
      return true;
    }
    metrics->line = record.line;
    if (kind == "compilation_metrics") {
      unit->metrics = std::move(*metrics);
    } else {
      unit->backward_metrics.push_back(std::move(*metrics));
    }
  } else if (unit != nullptr && text::ends_with(kind, "compilation_metrics_runtime")) {
    unit->runtime_metrics.push_back(record.json);
  } else if (unit != nullptr && kind == "guard_added_fast") {
    unit->shape_guards.push_back({get_string(body, "expr"),
                                  read_stack(body.value("user_stack", Json::array())), artifact.id,
                                  record.line});
  } else if (kind == "create_symbol") {
    // torch.export's symbols carry no compile id: its unit is made from the program later.
    ShapeSymbol symbol{get_string(body, "symbol"),
                       get_string(body, "val"),
                       get_string(body, "vr"),
                       get_string(body, "source"),
                       read_stack(body.value("user_stack", Json::array())),
                       artifact.id,
                       record.line};
    (unit != nullptr ? unit->symbols : producer_symbols_).push_back(std::move(symbol));
  } else if (kind == "artifact" || !record.payload.empty() ||
             artifact.kind != ArtifactKind::kOther || export_record(kind)) {
    add_artifact(unit, std::move(artifact));
  }
  return true;
}

void TraceBuilder::add_artifact(CompileUnit* unit, Artifact artifact) {
  if (unit == nullptr) {
    log_.global_artifacts_.push_back(std::move(artifact));
    return;
  }
  if (artifact.kind == ArtifactKind::kGraphBreakReason) add_graph_break(*unit, artifact);
  if (artifact.kind == ArtifactKind::kRecompileReasons) add_recompile(*unit, artifact);
  unit->artifacts.push_back(std::move(artifact));
}

void TraceBuilder::add_graph_break(CompileUnit& unit, const Artifact& artifact) {
  record_graph_break(unit, parse_graph_break(artifact.payload.text()), artifact.id, artifact.line);
}

void TraceBuilder::record_graph_break(CompileUnit& unit, GraphBreak gb, const CompileId& id,
                                      std::size_t line) {
  auto& breaks = log_.graph_breaks_;
  const auto same = std::find_if(breaks.begin(), breaks.end(),
                                 [&](const GraphBreak& b) { return b.same_break(gb); });
  const std::size_t index = static_cast<std::size_t>(same - breaks.begin());
  if (same != breaks.end()) {
    ++same->count;
    same->compile_ids.push_back(id);
  } else {
    gb.compile_ids.push_back(id);
    gb.first_line = line;
    breaks.push_back(std::move(gb));
  }
  if (std::find(unit.graph_breaks.begin(), unit.graph_breaks.end(), index) ==
      unit.graph_breaks.end()) {
    unit.graph_breaks.push_back(index);
  }
}

void TraceBuilder::add_recompile(CompileUnit& unit, const Artifact& artifact) {
  Recompile recompile{artifact.id, artifact.line, parse_recompile_reasons(artifact.payload.text())};
  if (recompile.reasons.empty()) warn(artifact.line, "recompile_reasons artifact without reasons");
  unit.recompile = log_.recompiles_.size();
  log_.recompiles_.push_back(std::move(recompile));
}

void TraceBuilder::finish(std::size_t lines, std::size_t payload_lines) {
  if (log_.units_.empty()) gather_producer_units();
  infer_graph_breaks();
  for (auto& unit : log_.units_) {
    name_post_grad_graphs(unit);
    assign_directions(unit);
    if (const auto events = pending_events_.find(unit.id); events != pending_events_.end()) {
      unit.chromium_events = std::move(events->second);
    }
  }
  TraceStats& stats = log_.stats_;
  stats.bytes = log_.text().size();
  stats.lines = lines;
  stats.payload_lines = payload_lines;
  stats.records = good_records_;
  if (unread_events_ > 0) {
    log_.warnings_.push_back({log_.path() + ":" + std::to_string(first_unread_event_),
                              std::to_string(unread_events_) + " chromium_event payload" +
                                  (unread_events_ == 1 ? " is" : "s are") +
                                  " no JSON event (the first here): compile-time figures leave " +
                                  (unread_events_ == 1 ? "it" : "them") + " out"});
  }
  if (silenced_warnings_ > 0) {
    log_.warnings_.push_back({log_.path(), std::to_string(silenced_warnings_) +
                                               " more problems like the ones above, not listed"});
  }
}

}  // namespace fxscope::trace
