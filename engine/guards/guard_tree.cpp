// The tree half of the guard parser: lines of `dynamo_cpp_guards_str` -> guards in the order
// Dynamo's GuardManagers check them.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fxscope/core/text.h"
#include "fxscope/guards/guard_parser.h"

namespace fxscope::guards {

namespace {

// One "| | +- ITEM" line: its depth (the count of "| ") and the item after "+- ".
struct TreeLine {
  std::size_t depth = 0;
  std::string item;  // with the lines of a multi-line repr that continue it
  std::size_t line = 0;
  bool manager = false;
};

std::optional<TreeLine> read_tree_line(std::string_view line, std::size_t line_no) {
  TreeLine out;
  out.line = line_no;
  std::size_t i = 0;
  while (line.substr(i, 2) == "| ") {
    ++out.depth;
    i += 2;
  }
  if (line.substr(i, 3) != "+- ") return std::nullopt;
  out.item = std::string(text::trim(line.substr(i + 3)));
  // Managers print as "GuardManager: source=...", "DictGuardManager: ...", "KeyManager: ...",
  // "KeyValueManager pair at index=0", "RootGuardManager"; guards as "TAG: code" or "TAG".
  const auto head = out.item.substr(0, out.item.find_first_of(": "));
  out.manager = head.find("Manager") != std::string_view::npos;
  return out;
}

// The class of a manager line: "KeyManager: DictGuardManager: source=..." -> DictGuardManager.
std::string_view manager_kind(std::string_view item) {
  for (const std::string_view role : {"KeyManager: ", "ValueManager: "}) {
    if (text::starts_with(item, role)) item.remove_prefix(role.size());
  }
  return item.substr(0, item.find_first_of(": "));
}

// "KeyValueManager pair at index=3" -> 3.
std::optional<std::int64_t> pair_index(std::string_view item) {
  constexpr std::string_view kPair = "KeyValueManager pair at index=";
  if (!text::starts_with(item, kPair)) return std::nullopt;
  return text::parse_int(item.substr(kPair.size()));
}

// The source a manager guards ("source=L['x'], accessed_by=..."), for guards that name none.
std::string manager_source(std::string_view item) {
  const auto at = item.find("source=");
  if (at == std::string_view::npos) return {};
  const auto rest = item.substr(at + 7);
  const auto parts = text::split_top_level(rest, ",");
  return parts.empty() ? std::string() : std::string(text::trim(parts[0]));
}

class TreeReader {
 public:
  TreeReader(std::vector<TreeLine> lines, GuardSet& set) : lines_(std::move(lines)), set_(set) {}

  // Depth 0 holds the RootGuardManager and, printed beside it, the epilogue LAMBDA_GUARDs
  // that RootGuardManager runs after its whole tree. Inside every manager its own guards run
  // before its children.
  void run() {
    set_.nodes.push_back({});
    std::vector<std::size_t> epilogue_lines;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      if (lines_[i].depth != 0) continue;
      if (!lines_[i].manager) {
        epilogue_lines.push_back(i);
        continue;
      }
      // A second manager at depth 0 has never been seen; its content joins the root's.
      visit(i + 1, end_of(i, 0), 1, manager_source(lines_[i].item), 0, false);
    }
    for (const std::size_t i : epilogue_lines) set_.epilogue.push_back(emit(i, {}));
  }

 private:
  std::size_t end_of(std::size_t manager, std::size_t depth) const {
    std::size_t j = manager + 1;
    while (j < lines_.size() && lines_[j].depth > depth) ++j;
    return j;
  }

  // Reads the lines [begin, end) at DEPTH into node NODE: its leaf guards first, as Dynamo
  // runs them, then each child manager's subtree.
  void visit(std::size_t begin, std::size_t end, std::size_t depth, const std::string& source,
             std::size_t node, bool dict) {
    if (dict) add_dict_length(begin, end, depth, source, node);
    std::vector<std::size_t> managers;
    for (std::size_t i = begin; i < end; ++i) {
      if (lines_[i].depth != depth) continue;
      if (lines_[i].manager) {
        managers.push_back(i);
      } else {
        const std::size_t guard = emit(i, source);
        set_.nodes[node].guards.push_back(guard);
      }
    }
    for (const std::size_t m : managers) {
      const auto src = manager_source(lines_[m].item);
      const auto kind = manager_kind(lines_[m].item);
      // DictGuardManager (and its subclass variant) walks its key/value pairs by index.
      const bool is_dict = text::starts_with(kind, "Dict");
      const bool sorts = !is_dict && kind != "KeyValueManager";
      const std::size_t child = set_.nodes.size();
      set_.nodes.push_back({src.empty() ? source : src, {}, {}, sorts});
      set_.nodes[node].children.push_back(child);
      const std::string child_source = set_.nodes[child].source;  // nodes grows in visit
      visit(m + 1, end_of(m, depth), depth + 1, child_source, child, is_dict);
    }
  }

  // DictGuardManager::check_verbose_nopybind checks the dict's length before anything else
  // ("len(L['cfg']) != 1"). The tree prints no length, only the key/value pairs it guards; when
  // they are pairs 0..n-1 the dict held n items, and the check is kept as a guard of its own.
  void add_dict_length(std::size_t begin, std::size_t end, std::size_t depth,
                       const std::string& source, std::size_t node) {
    std::int64_t pairs = 0;
    for (std::size_t i = begin; i < end; ++i) {
      if (lines_[i].depth != depth) continue;
      const auto index = pair_index(lines_[i].item);
      if (!index) continue;
      if (*index != pairs) return;
      ++pairs;
    }
    Guard guard;
    guard.kind = GuardKind::kLength;
    guard.tag = "DictGuardManager";
    guard.source = source;
    guard.value = Value::of_int(pairs);
    guard.code = "len(" + source + ") != " + std::to_string(pairs);
    guard.line = begin > 0 ? lines_[begin - 1].line : 0;
    set_.guards.push_back(std::move(guard));
    set_.nodes[node].guards.push_back(set_.guards.size() - 1);
  }

  std::size_t emit(std::size_t i, const std::string& source) {
    const std::string_view item = lines_[i].item;
    const auto colon = item.find(':');
    const auto tag = text::trim(item.substr(0, colon));
    const auto code = colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1);
    const std::string where = "guard tree line " + std::to_string(lines_[i].line);
    Guard guard = parse_guard(tag, code, set_.warnings, where);
    guard.line = lines_[i].line;
    if (guard.source.empty() && guard.kind != GuardKind::kShape) guard.source = source;
    set_.guards.push_back(std::move(guard));
    return set_.guards.size() - 1;
  }

  std::vector<TreeLine> lines_;
  GuardSet& set_;
};

}  // namespace

std::string_view to_string(GuardKind kind) {
  switch (kind) {
    case GuardKind::kTensorMatch:
      return "tensor";
    case GuardKind::kConstant:
      return "constant";
    case GuardKind::kType:
      return "type";
    case GuardKind::kId:
      return "id";
    case GuardKind::kLength:
      return "length";
    case GuardKind::kShape:
      return "shape";
    case GuardKind::kAmbient:
      return "ambient";
    case GuardKind::kStructure:
      return "structure";
    case GuardKind::kOpaque:
      return "opaque";
  }
  return "opaque";
}

GuardSet parse_guard_tree(std::string_view text_in) {
  GuardSet set;
  std::vector<TreeLine> lines;
  text::for_each_line(text_in, [&](std::string_view raw, std::size_t line_no) {
    const auto line = text::trim(raw);
    if (line.empty() || line == "TREE_GUARD_MANAGER:" || text::starts_with(line, "Guard latency")) {
      return;
    }
    if (auto tree_line = read_tree_line(line, line_no)) {
      lines.push_back(std::move(*tree_line));
      return;
    }
    // Not in tree form: the next line of a multi-line repr (an optimizer's, in an ID_MATCH's
    // "type=SGD (...)"), or, before any tree line, a top-level guard of its own, which the
    // guard parser names as not understood unless it is one.
    if (!lines.empty()) {
      lines.back().item += "\n" + std::string(line);
      return;
    }
    lines.push_back({0, std::string(line), line_no, false});
  });
  TreeReader(std::move(lines), set).run();
  return set;
}

GuardSet parse_unit_guards(const trace::CompileUnit& unit) {
  GuardSet set;
  if (const auto* artifact = unit.guards()) {
    set = parse_guard_tree(artifact->payload.text());
  } else {
    for (const auto& shape : unit.shape_guards) {
      if (shape.id.attempt != unit.final_attempt) continue;
      Guard guard = parse_guard("guard_added_fast", shape.expr, set.warnings,
                                "log line " + std::to_string(shape.line));
      // Shape guards run as lambdas after the tree would have: the epilogue.
      set.epilogue.push_back(set.guards.size());
      set.guards.push_back(std::move(guard));
    }
    set.warnings.push_back(
        {"[" + unit.id.str() + "]",
         "no dynamo_cpp_guards_str in the log: only its shape guards are known"});
  }
  for (const auto& symbol : unit.symbols) {
    bool seen = false;
    for (auto& [name, source] : set.symbols) {
      if (name == symbol.symbol) {
        source = symbol.source;  // a later attempt's record wins
        seen = true;
      }
    }
    if (!seen) set.symbols.emplace_back(symbol.symbol, symbol.source);
  }
  return set;
}

}  // namespace fxscope::guards
