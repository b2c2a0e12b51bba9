#include "fxscope/guards/recompile_replay.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "fxscope/core/text.h"
#include "fxscope/guards/dynamo_text.h"
#include "fxscope/guards/guard_evaluator.h"
#include "fxscope/guards/guard_parser.h"
#include "guard_checks.h"

namespace fxscope::guards {

namespace {

// The hint of each symbol's source ("L['x'].size()[0]" -> "16"), the final attempt's record
// winning over earlier attempts'.
std::vector<std::pair<std::string, std::string>> symbol_hints(const trace::CompileUnit& unit) {
  std::vector<std::pair<std::string, std::string>> hints;
  for (const auto& symbol : unit.symbols) {
    if (symbol.source.empty() || symbol.value.empty()) continue;
    auto it = std::find_if(hints.begin(), hints.end(),
                           [&](const auto& h) { return h.first == symbol.source; });
    if (it == hints.end()) {
      hints.emplace_back(symbol.source, symbol.value);
    } else if (symbol.id.attempt <= unit.final_attempt) {
      it->second = symbol.value;
    }
  }
  return hints;
}

Dims fill_dims(const Dims& dims, const std::string& base, std::string_view accessor,
               const std::vector<std::pair<std::string, std::string>>& hints) {
  Dims out = dims;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i]) continue;
    const std::string source = base + std::string(accessor) + "[" + std::to_string(i) + "]";
    for (const auto& [hint_source, value] : hints) {
      if (hint_source == source) out[i] = text::parse_int(value);
    }
  }
  return out;
}

// Reads a dim of the input built so far, for the equalities that pin unknown strides.
std::optional<Value> input_value(const ProposedInput& input, const GuardSet& guards,
                                 std::string_view source) {
  for (const auto& [symbol, symbol_source] : guards.symbols) {
    if (symbol == source) source = symbol_source;
  }
  if (const auto access = parse_tensor_access(source)) {
    const TensorInput* t = input.find_tensor(access->base);
    if (!t) return std::nullopt;
    const auto& dims = access->kind == TensorAccess::Kind::kSize ? t->sizes : t->strides;
    if (!dims || access->index >= dims->size() || !(*dims)[access->index]) return std::nullopt;
    return Value::of_int(*(*dims)[access->index]);
  }
  if (const Value* v = input.find_constant(source)) return *v;
  return std::nullopt;
}

// A dynamic stride is often pinned by a shape guard `L['x'].stride()[1] == L['x'].size()[0]`.
void pin_from_equalities(ProposedInput& input, const GuardSet& guards) {
  for (const auto& guard : guards.guards) {
    if (guard.kind != GuardKind::kShape || !guard.expr) continue;
    const auto& expr = *guard.expr;
    const auto& root = expr.nodes[static_cast<std::size_t>(expr.root)];
    if (root.op != ExprNode::Op::kEq || root.args.size() != 2) continue;
    const auto& lhs = expr.nodes[static_cast<std::size_t>(root.args[0])];
    if (lhs.op != ExprNode::Op::kSource) continue;
    const auto access = parse_tensor_access(lhs.name);
    if (!access || input_value(input, guards, lhs.name)) continue;
    const auto rhs = evaluate_node(
        expr, root.args[1], [&](std::string_view s) { return input_value(input, guards, s); });
    if (rhs.state != ExprResult::State::kKnown || rhs.value.kind != Value::Kind::kInt) continue;
    TensorInput& t = input.tensor(access->base);
    auto& dims = access->kind == TensorAccess::Kind::kSize ? t.sizes : t.strides;
    if (dims && access->index < dims->size()) (*dims)[access->index] = rhs.value.integer;
  }
}

}  // namespace

ProposedInput unit_input(const trace::CompileUnit& unit, const GuardSet& guards) {
  ProposedInput input;
  const auto hints = symbol_hints(unit);
  for (const auto& guard : guards.guards) {
    if (guard.kind == GuardKind::kTensorMatch && guard.tensor) {
      const TensorMatch& m = *guard.tensor;
      TensorInput& t = input.tensor(m.source);
      t.sizes = fill_dims(m.sizes, m.source, ".size()", hints);
      t.strides = fill_dims(m.strides, m.source, ".stride()", hints);
      t.dtype = m.dtype;
      std::string type = m.backend.empty() ? std::string("cuda") : m.backend;
      for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      t.device = Device{type, m.device_index};
      t.requires_grad = m.requires_grad;
    } else if (guard.kind == GuardKind::kConstant && guard.value) {
      input.set_constant(guard.source, *guard.value);
    }
    if (const auto key = detail::observed_key(guard)) {
      input.observed.push_back({key->tag, key->source, guard.code});
    }
  }
  // Scalars Dynamo made dynamic (a float from .item(), an int attribute) have no EQUALS_MATCH;
  // their symbol's hint is the value this compile saw.
  for (const auto& [source, value] : hints) {
    if (parse_tensor_access(source) || input.find_constant(source)) continue;
    if (auto v = parse_python_value(value)) input.set_constant(source, std::move(*v));
  }
  pin_from_equalities(input, guards);
  return input;
}

std::string normalize_reason(std::string_view reason) {
  const auto first_line = reason.substr(0, reason.find('\n'));
  const auto code = split_comment(first_line).code;
  std::string out;
  for (const char c : code) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {

std::string frame_text(const trace::StackFrame& f) {
  return f.file + ":" + std::to_string(f.line) + (f.function.empty() ? "" : " in " + f.function);
}

// REASON explained, with what the new compile UNIT (null when not in the log) says of the value
// it was compiled for.
RecompileCause explain(const trace::RecompileReason& reason, const trace::CompileUnit* unit) {
  RecompileCause cause = explain_recompile(normalize_reason(reason.text));
  if (const auto* frame = trace::innermost_user_frame(reason.user_stack)) {
    cause.where = frame_text(*frame);
  } else if (unit != nullptr && unit->user_frame() != nullptr) {
    cause.where = frame_text(*unit->user_frame());
  }
  if (!cause.after.empty() || unit == nullptr || cause.source.empty()) return cause;
  if (const auto* guards = unit->guards()) {
    cause.after = guarded_value(guards->payload.text(), cause.source);
    // "___as_tensor(scale).item()": the value is a graph input now, named by a symbol below.
    if (cause.after.find("___") != std::string::npos) cause.after.clear();
  }
  if (!cause.after.empty()) return cause;
  // No guard pins the value any more: Dynamo made it a symbol (automatic dynamic).
  // "self.alpha" is L['self'].alpha in a symbol's source.
  const auto cut = std::min(cause.source.find('.'), cause.source.find('['));
  const std::string source = "L['" + cause.source.substr(0, cut) + "']" +
                             (cut == std::string::npos ? "" : cause.source.substr(cut));
  for (const auto& symbol : unit->symbols) {
    if (symbol.source == source) {
      cause.after = symbol.value + " (now dynamic: " + symbol.symbol + ")";
      break;
    }
  }
  return cause;
}

}  // namespace

std::vector<RecompileCheck> replay_recompiles(const trace::TraceLog& log) {
  std::vector<RecompileCheck> checks;
  const auto& units = log.units();
  std::vector<std::optional<GuardSet>> parsed(units.size());
  // Each cache entry's guard managers carry their failure counts from one call to the next;
  // the recorded recompiles are the calls the log shows.
  std::vector<std::optional<CheckOrder>> orders(units.size());
  auto guards_of = [&](std::size_t i) -> const GuardSet& {
    if (!parsed[i]) parsed[i] = parse_unit_guards(units[i]);
    return *parsed[i];
  };
  for (const auto& recompile : log.recompiles()) {
    RecompileCheck check;
    check.compile_id = recompile.id.without_attempt();
    for (const auto& reason : recompile.reasons) {
      check.recorded.push_back(reason.failed_id.str() + ": " + normalize_reason(reason.text));
    }
    const trace::CompileUnit* unit = log.find_unit(recompile.id);
    for (const auto& reason : recompile.reasons) {
      check.causes.push_back(explain(reason, unit));
    }
    if (!unit) {
      check.gaps.push_back({"[" + check.compile_id.str() + "]", "no compile unit in the log"});
      checks.push_back(std::move(check));
      continue;
    }
    const auto unit_index = static_cast<std::size_t>(unit - units.data());
    const ProposedInput input = unit_input(*unit, guards_of(unit_index));
    // Dynamo checks the frame's cache entries most recently used first (extra_state.cpp moves
    // a hit to the front); without the hits, which the log does not record, newest first.
    std::vector<std::size_t> earlier;
    for (std::size_t i = 0; i < units.size(); ++i) {
      const auto& id = units[i].id;
      if (id.frame_id == check.compile_id.frame_id &&
          id.compiled_autograd_id == check.compile_id.compiled_autograd_id &&
          id.frame_compile_id < check.compile_id.frame_compile_id && units[i].guards()) {
        earlier.push_back(i);
      }
    }
    std::sort(earlier.begin(), earlier.end(), [&](std::size_t a, std::size_t b) {
      return units[a].id.frame_compile_id > units[b].id.frame_compile_id;
    });
    for (const std::size_t i : earlier) {
      if (!orders[i]) orders[i] = fresh_order(guards_of(i));
      const auto result = evaluate_call(guards_of(i), input, *orders[i]);
      const std::string id = units[i].id.without_attempt().str();
      check.predicted.push_back(
          id + ": " + (result.reused ? std::string("reused") : normalize_reason(result.reason)));
      for (const auto& gap : result.gaps)
        check.gaps.push_back({"[" + id + "] " + gap.where, gap.message});
    }
    check.match = check.recorded == check.predicted;
    checks.push_back(std::move(check));
  }
  return checks;
}

}  // namespace fxscope::guards
