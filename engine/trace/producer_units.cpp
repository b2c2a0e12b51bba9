// Units of logs without compile ids: torch.export writes its program, guards and draft-export
// problems, and AOTInductor its graphs, code and provenance, outside any Dynamo compile.
#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "fxscope/core/text.h"
#include "fxscope/trace/trace_builder.h"

namespace fxscope::trace {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 4> kExportKinds{
    "guard_added", "propagate_real_tensors_provenance", "missing_fake_kernel",
    "mismatched_fake_kernel"};

// The record kind an artifact was made from: its name, or "artifact" for named artifacts.
bool is_graph_or_code(const Artifact& a) {
  if (a.kind != ArtifactKind::kOther) return true;
  return a.name == "graph_dump" || text::starts_with(a.name, "before_") ||
         text::starts_with(a.name, "after_") || text::starts_with(a.name, "inductor_") ||
         text::ends_with(a.name, "_graph");
}

bool is_aot_graph(const Artifact& a) {
  return (a.kind == ArtifactKind::kAotInferenceGraph || a.kind == ArtifactKind::kAotForwardGraph) &&
         a.name != "exported_program";
}

std::string text_of(const Json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

bool export_record(std::string_view kind) {
  return std::find(kExportKinds.begin(), kExportKinds.end(), kind) != kExportKinds.end();
}

void TraceBuilder::read_export_record(CompileUnit& unit, const Artifact& artifact) {
  const Json envelope = Json::parse(artifact.envelope, nullptr, false);
  if (!envelope.is_object() || !envelope.contains(artifact.name)) return;
  const Json& body = envelope[artifact.name];
  if (!body.is_object()) return;
  ExportIssue issue;
  issue.user_stack = read_stack(body.value("user_stack", Json::array()));
  issue.stack = read_stack(body.value("stack", Json::array()));
  issue.line = artifact.line;
  const std::string expr = text_of(body, "expr");
  if (artifact.name == "guard_added") {
    unit.shape_guards.push_back({expr, issue.user_stack, unit.id, artifact.line});
    // Only guards export evaluated can break its constraints; the others are its shape facts.
    if (text_of(body, "prefix") != "eval") return;
    issue.kind = "guard evaluated";
    issue.detail = expr;
  } else if (artifact.name == "propagate_real_tensors_provenance") {
    issue.kind = "data-dependent expression";
    issue.detail = expr + " could not be decided; specialized to " + text_of(body, "result");
  } else {
    issue.kind =
        artifact.name == "missing_fake_kernel" ? "missing fake kernel" : "mismatched fake kernel";
    issue.detail = "torch.ops." + text_of(body, "op");
    if (const auto reason = text_of(body, "reason"); !reason.empty()) issue.detail += ": " + reason;
  }
  unit.export_issues.push_back(std::move(issue));
}

void TraceBuilder::gather_producer_units() {
  std::vector<Artifact> kept;
  CompileUnit* current = nullptr;
  const auto start_unit = [&](std::size_t line) {
    CompileUnit unit;
    unit.id.frame_id = static_cast<int>(log_.units_.size());
    unit.id.frame_compile_id = 0;
    unit.first_line = line;
    log_.units_.push_back(std::move(unit));
    return &log_.units_.back();
  };
  for (auto& a : log_.global_artifacts_) {
    const bool exported = a.name == "exported_program";
    const bool belongs = exported || export_record(a.name) || is_graph_or_code(a);
    if (!belongs) {
      kept.push_back(std::move(a));
      continue;
    }
    // A second AOT graph is the next model AOTInductor compiled.
    if (current != nullptr && is_aot_graph(a) &&
        std::any_of(current->artifacts.begin(), current->artifacts.end(), is_aot_graph)) {
      current = nullptr;
    }
    if (current == nullptr) current = start_unit(a.line);
    a.id = current->id;
    if (exported || export_record(a.name)) current->producer = "torch.export";
    if (exported) {
      // The program's record holds the stack of the export call: the unit's frame.
      const Json envelope = Json::parse(a.envelope, nullptr, false);
      if (envelope.is_object()) current->stack = read_stack(envelope.value("stack", Json::array()));
    }
    if (current->producer.empty()) current->producer = "AOTInductor";
    if (export_record(a.name)) {
      read_export_record(*current, a);
    } else {
      current->artifacts.push_back(std::move(a));
    }
    // The program is logged last: what follows belongs to the next export.
    if (exported) current = nullptr;
  }
  log_.global_artifacts_ = std::move(kept);
  place_producer_symbols();
}

void TraceBuilder::place_producer_symbols() {
  for (ShapeSymbol& symbol : producer_symbols_) {
    for (CompileUnit& unit : log_.units_) {
      if (unit.producer.empty()) continue;
      std::size_t last = unit.first_line;
      for (const Artifact& a : unit.artifacts) last = std::max(last, a.line);
      if (last < symbol.line) continue;
      symbol.id = unit.id;
      unit.symbols.push_back(std::move(symbol));
      break;
    }
  }
  producer_symbols_.clear();
}

}  // namespace fxscope::trace
